// smskit's account dashboard front end (anywidget ES module, dom.js in front of it, no build
// step). It draws what the Python side sent: the balance and tables as their escaped HTML
// (`balance_html`, `credits_table`, `drafts_table`), the map as projected country outlines
// with their colour (`map`); the only thing it sends back is the refresh button's press.

function creditsMap(map, titleId) {
  if (!map || !map.countries) return el("p", { text: "no map" });
  const shapes = svg("svg", {
    viewBox: map.view_box, role: "img", "aria-labelledby": titleId, class: "sk-map-svg",
    preserveAspectRatio: "xMidYMid meet",
  });
  for (const c of map.countries) {
    const value = c.value === null ? "no credits known" : `${number(c.value)} credits`;
    shapes.append(svg("path", { d: c.path, fill: c.color, class: "sk-country", "data-code": c.code },
      svg("title", {}, `${c.name}: ${value}`)));
  }
  const scale = el("span", { class: "sk-scale", "aria-hidden": "true" });
  scale.style.background = `linear-gradient(to right, ${map.colors.join(", ")})`;
  return el("figure", { class: "sk-map smskit-map" },
    el("figcaption", { id: titleId, text: map.title }),
    shapes,
    el("div", { class: "sk-legend-scale" },
      el("span", { text: number(Math.round(map.low)) }), scale,
      el("span", { text: `${number(Math.round(map.high))} credits` })),
    map.note ? el("p", { class: "sk-note", text: map.note }) : null);
}

function render({ model, el: root }) {
  const id = uniqueId("dashboard");
  const box = el("section", { class: "smskit-w smskit-dashboard", "aria-label": "account dashboard" });
  const balance = el("div", { class: "sk-balance smskit-account-balance", "aria-live": "polite" });
  const refresh = actionButton(model, "refresh", "refresh", "Ask the gateway again: balance, credits, drafts");
  const credits = el("div", { class: "sk-result sk-scroll smskit-credits", tabindex: "0", "aria-labelledby": `${id}-credits` });
  const mapBox = el("div", { class: "sk-map-box" });
  const drafts = el("div", { class: "sk-result smskit-drafts", "aria-labelledby": `${id}-drafts` });
  const { message, draw: drawMessage, events: messageEvents } = messageLine(model);
  box.append(
    el("header", { class: "sk-head" }, balance, refresh),
    el("div", { class: "sk-section" },
      el("h3", { id: `${id}-credits`, text: "Credits by country" }),
      el("div", { class: "sk-credits" }, credits, mapBox)),
    el("div", { class: "sk-section" }, el("h3", { id: `${id}-drafts`, text: "Current drafts" }), drafts),
    el("div", { class: "sk-section" }, message));
  root.append(box);

  const drawBalance = () => { balance.innerHTML = model.get("balance_html") || ""; };
  const drawCredits = () => { credits.innerHTML = model.get("credits_table") || ""; };
  const drawDrafts = () => { drafts.innerHTML = model.get("drafts_table") || ""; };
  const drawMap = () => { mapBox.replaceChildren(creditsMap(model.get("map"), `${id}-map`)); };
  return follow(model, [
    ["change:balance_html", drawBalance], ["change:credits_table", drawCredits],
    ["change:drafts_table", drawDrafts], ["change:map", drawMap],
    ...messageEvents.map((e) => [e, drawMessage]),
  ]);
}

export default { render };
