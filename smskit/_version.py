"""smskit's version: the one place it is written (the build reads it, ``smskit.__version__``
shows it). Imports nothing."""

__version__ = "0.1.0"
