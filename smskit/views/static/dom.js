// Helpers every smskit widget module starts with (the Python side puts this
// file in front of the widget's module: one ES module, no build step, no import at run time).
// Every user or gateway value is put in the page as text (textContent), never as markup.

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) node.append(child);
  return node;
}

// one formatter, made once: toLocaleString("en-US") builds one a call (60 µs against 4 µs)
const numbers = new Intl.NumberFormat("en-US");
const number = (n) => (n === null || n === undefined ? "—" : numbers.format(n));
let made = 0;
const uniqueId = (name) => `smskit-${name}-${++made}-${Math.random().toString(36).slice(2, 8)}`;

// A button that asks the Python side for `action` (the widget's press()), sending along the
// inputs' values as the user left them (`values()`): a host may deliver the message before the
// trait changes sent just before it.
function actionButton(model, action, label, title, primary = false, values = () => ({})) {
  const button = el("button", {
    type: "button", class: primary ? "sk-primary" : null, title, "data-action": action, text: label,
  });
  button.addEventListener("click", () => model.send({ action, values: values() }));
  return button;
}

// The message line: the outcome or error of the last button.
function messageLine(model) {
  const message = el("p", { class: "sk-message smskit-message", role: "status", "aria-live": "polite" });
  const draw = () => {
    message.textContent = model.get("message") || "";
    message.classList.toggle("sk-error", model.get("message_kind") === "error");
  };
  return { message, draw, events: ["change:message", "change:message_kind"] };
}

// The progress line of a long task (trait `progress`: {done, total, unit}); hidden when idle.
function progressLine(model, tag = "span") {
  const bar = el("progress", { "aria-label": "progress", max: "1", value: "0" });
  const label = el("span", { class: "smskit-progress-label" });
  const progress = el(tag, { class: "sk-progress", hidden: true }, bar, " ", label);
  const draw = () => {
    const p = model.get("progress") || {};
    progress.hidden = !p.total;
    bar.max = Math.max(1, p.total || 0);
    bar.value = p.done || 0;
    label.textContent = p.total ? `${number(p.done)}/${number(p.total)} ${p.unit}` : "";
  };
  return { progress, draw, events: ["change:progress"] };
}

// A press Python has run (its count, trait `presses`) is handed back as a change of the front
// end: marimo re-runs the cells that read the widget only on such changes, and a press changes
// the widget from Python (cells showed the text as it was before "optimise text"). Where the
// value is already the model's (JupyterLab, Notebook 7) nothing is sent. Each count is handed
// back once (marimo's set() announces the change again, synchronously).
function pressesHandedBack(model) {
  let handed = model.get("presses");
  return () => {
    const presses = model.get("presses");
    if (presses === handed) return;
    handed = presses;
    model.set("presses", presses);
    model.save_changes();
  };
}

// Wire `handlers` ([event, draw] pairs), draw once, and return anywidget's clean-up.
function follow(model, handlers) {
  const wired = [...handlers, ["change:presses", pressesHandedBack(model)]];
  for (const [event, handler] of wired) model.on(event, handler);
  for (const handler of new Set(handlers.map(([, handler]) => handler))) handler();
  return () => {
    for (const [event, handler] of wired) model.off(event, handler);
  };
}
