// smskit's HLR explorer front end (anywidget ES module, dom.js in front of it, no build step).
// It draws what the Python side computed (traits `table`, `charts`, `countries`, `progress`
// ...) and sends back only what the user typed or chose (`numbers_text`, the filters, the CSV
// file name) or pressed (`{action}`). `table` is the Python side's escaped HTML.

// One chart: a row per category, its series stacked as one bar, the legend under it.
function barChart(chart) {
  const totals = chart.categories.map((_, i) => chart.series.reduce((sum, s) => sum + (s.values[i] || 0), 0));
  const largest = Math.max(1, ...totals);
  const rows = chart.categories.map((category, i) => {
    const parts = chart.series.filter((s) => s.values[i]);
    const said = parts.map((s) => `${s.name} ${number(s.values[i])}`).join(", ");
    return el("li", { class: "sk-bar-row" },
      el("span", { class: "sk-bar-label", text: category }),
      el("span", { class: "sk-bar", "aria-hidden": "true" },
        ...parts.map((s) => {
          const part = el("span", { title: `${category} · ${s.name}: ${number(s.values[i])}` });
          part.style.width = `${(100 * s.values[i]) / largest}%`;
          part.style.background = s.color;
          return part;
        })),
      el("span", { class: "sk-bar-total", text: number(totals[i]) }),
      el("span", { class: "sk-visually-hidden", text: `: ${said}` }));
  });
  const legend = el("ul", { class: "sk-legend", "aria-label": `legend: ${chart.legend || "series"}` },
    ...chart.series.map((s) => {
      const swatch = el("span", { class: "sk-swatch", "aria-hidden": "true" });
      swatch.style.background = s.color;
      return el("li", {}, swatch, s.name);
    }));
  return el("figure", { class: "sk-chart smskit-chart" },
    el("figcaption", { text: chart.title }),
    el("ol", { class: "sk-bars", "aria-label": chart.axis ? `${chart.axis} per row` : null }, ...rows),
    legend);
}

function render({ model, el: root }) {
  const id = uniqueId("hlr");
  const box = el("section", { class: "smskit-w smskit-hlr-explorer", "aria-label": "HLR explorer" });

  const area = el("textarea", {
    id: `${id}-numbers`, class: "smskit-numbers", rows: "5", spellcheck: "false",
    placeholder: "one number per line (or separated by commas)",
  });
  // what the user left in the inputs, sent with a press (see actionButton)
  const inputs = () => ({
    numbers_text: area.value, country: country.value, line_status: status.value, csv_path: csv.value,
  });
  const check = actionButton(model, "check", "check", "Ask the gateway about each line (HLR lookup)", true, inputs);
  const { progress, draw: drawProgress, events: progressEvents } = progressLine(model);

  const country = el("select", { id: `${id}-country` });
  const status = el("select", { id: `${id}-status` });
  const filters = el("div", { class: "sk-filters", role: "group", "aria-label": "filters" },
    el("div", {}, el("label", { for: country.id, text: "country" }), country),
    el("div", {}, el("label", { for: status.id, text: "line_status" }), status));
  const table = el("div", { class: "sk-result smskit-table", "aria-live": "polite" });
  const charts = el("div", { class: "sk-charts" });
  const csv = el("input", { type: "text", id: `${id}-csv`, autocomplete: "off", placeholder: "hlr.csv" });
  const exportButton = actionButton(model, "export", "export CSV", "Write the filtered rows to the CSV file", false, inputs);
  const { message, draw: drawMessage, events: messageEvents } = messageLine(model);

  box.append(
    el("div", { class: "sk-section" },
      el("label", { for: area.id, text: "numbers to check" }), area,
      el("div", { class: "sk-row" }, check, progress)),
    el("div", { class: "sk-section sk-explore" }, filters, table, charts),
    el("div", { class: "sk-section sk-row sk-export" },
      el("div", { class: "sk-grow" }, el("label", { for: csv.id, text: "CSV file" }), csv), exportButton),
    el("div", { class: "sk-section" }, message));
  root.append(box);

  const fill = (select, values, current) => {
    if ([...select.options].map((o) => o.value).join("\n") !== values.join("\n")) {
      select.replaceChildren(...values.map((v) => el("option", { value: v, text: v })));
    }
    select.value = current;
  };
  const drawInputs = () => {
    if (area.value !== model.get("numbers_text")) area.value = model.get("numbers_text");
    if (csv.value !== model.get("csv_path")) csv.value = model.get("csv_path");
    fill(country, model.get("countries") || [], model.get("country"));
    fill(status, model.get("statuses") || [], model.get("line_status"));
  };
  const drawResults = () => {
    const checked = Boolean(model.get("checked"));
    table.innerHTML = model.get("table") || "";
    charts.replaceChildren(...(model.get("charts") || []).map(barChart));
    exportButton.disabled = !checked;
    country.disabled = status.disabled = !checked;
  };

  const set = (name, value) => {
    model.set(name, value);
    model.save_changes();
  };
  area.addEventListener("input", () => set("numbers_text", area.value));
  csv.addEventListener("input", () => set("csv_path", csv.value));
  country.addEventListener("change", () => set("country", country.value));
  status.addEventListener("change", () => set("line_status", status.value));

  return follow(model, [
    ["change:numbers_text", drawInputs], ["change:csv_path", drawInputs],
    ["change:countries", drawInputs], ["change:country", drawInputs],
    ["change:statuses", drawInputs], ["change:line_status", drawInputs],
    ["change:table", drawResults], ["change:charts", drawResults], ["change:checked", drawResults],
    ...progressEvents.map((e) => [e, drawProgress]), ...messageEvents.map((e) => [e, drawMessage]),
  ]);
}

export default { render };
