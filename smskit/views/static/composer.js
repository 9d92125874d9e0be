// smskit's Composer front end (anywidget ES module, dom.js in front of it, no build step).
// It draws what the Python side computed (traits `state`, `controls`, `summary`, ...) and
// sends back only what the user typed (`text` and the options) or pressed (`{action}`).
// Every user value is put in the page as text (textContent), never as markup; `result_html`
// is the Python side's escaped HTML of an estimate or result.

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

const BUTTONS = [
  ["optimize", "optimise text", "Replace look-alike characters and useless spacing"],
  ["stop", "add STOP mention", "Append the STOP mention marketing needs"],
  ["estimate", "estimate cost", "Ask the gateway what this campaign costs (nothing is sent)"],
  ["send", "send", "Send the campaign (asks for confirmation first)"],
];

function render({ model, el: root }) {
  const id = uniqueId("composer");
  const box = el("section", { class: "smskit-w smskit-composer", "aria-label": "SMS campaign composer" });

  // -- always in view: recipients, SMS, cost -------------------------------------------------
  const toSend = el("strong", { class: "smskit-to-send" });
  const excluded = el("small");
  const sms = el("strong", { class: "smskit-sms" });
  const cost = el("strong", { class: "smskit-cost" });
  const costNote = el("small");
  const summary = el("header", { class: "sk-summary", "aria-label": "campaign summary" },
    el("div", { class: "sk-figure" }, el("span", { text: "recipients to send" }), toSend, excluded),
    el("div", { class: "sk-figure" }, el("span", { text: "SMS" }), sms),
    el("div", { class: "sk-figure" }, el("span", { text: "cost" }), cost, costNote));

  // -- the editor, its marks and its meter ---------------------------------------------------
  const backdrop = el("div", { class: "sk-backdrop", "aria-hidden": "true" });
  const area = el("textarea", {
    id: `${id}-text`, class: "smskit-textarea", spellcheck: "false",
    placeholder: "Hello {first_name}, ... STOP au 36173",
    "aria-describedby": `${id}-meter ${id}-forcing`,
  });
  const editor = el("div", { class: "sk-editor" }, backdrop, area);
  const bar = el("span");
  const meterBar = el("div", {
    class: "sk-meter-bar", role: "meter", "aria-label": "units used of the last segment",
    "aria-valuemin": "0",
  }, bar);
  const characters = el("span", { class: "smskit-characters" });
  const units = el("span", { class: "smskit-units" });
  const segments = el("span", { class: "smskit-segments" });
  const encoding = el("span", { class: "smskit-encoding" });
  const meterText = el("div", { class: "sk-meter-text", id: `${id}-meter` },
    characters, " · ", units, " · ", segments, " · ", encoding);
  const forcing = el("p", { class: "smskit-forcing", id: `${id}-forcing` });
  const delivered = el("p", { class: "smskit-delivered" });
  const fields = el("p", { class: "smskit-fields" });
  const meter = el("div", { class: "sk-meter" }, meterBar, meterText, forcing, delivered, fields);

  // -- settings ------------------------------------------------------------------------------
  const labelled = (name, label, control) => {
    control.id = `${id}-${name}`;
    return el("div", {}, el("label", { for: control.id, text: label }), control);
  };
  const sender = el("input", { type: "text", placeholder: "MyShop", autocomplete: "off" });
  const type = el("select");
  const purpose = el("select");
  const sendAt = el("input", { type: "text", placeholder: "now, or 2030-06-04T10:00:00+02:00" });
  const replies = el("input", { type: "checkbox", id: `${id}-replies` });
  const settings = el("div", { class: "sk-settings" },
    labelled("sender", "sender", sender), labelled("type", "type", type),
    labelled("purpose", "purpose", purpose), labelled("send-at", "send_at", sendAt),
    el("div", { class: "sk-check" }, replies,
      el("label", { for: `${id}-replies`, text: "with_replies" })));

  // -- buttons, the reason a button is disabled, the confirmation ---------------------------
  // A press carries the inputs as the user left them (the Python side's INPUTS): a host may
  // deliver it before the changes sent just before (marimo does).
  const values = () => ({
    text: area.value, sender: sender.value, sms_type: type.value, purpose: purpose.value,
    with_replies: replies.checked, send_at: sendAt.value,
  });
  const buttons = {};
  const why = el("p", { class: "sk-why smskit-why", id: `${id}-why`, "aria-live": "polite" });
  const buttonRow = el("div", { class: "sk-buttons", role: "group", "aria-label": "actions" });
  for (const [action, label, title] of BUTTONS) {
    const button = el("button", {
      type: "button", class: action === "send" ? "sk-primary" : null, title,
      "aria-describedby": action === "send" ? `${id}-why` : null, "data-action": action, text: label,
    });
    button.addEventListener("click", () => model.send({ action, values: values() }));
    buttons[action] = button;
    buttonRow.append(button);
  }
  const question = el("p", { id: `${id}-question` });
  const confirm = el("button", { type: "button", class: "sk-danger", text: "Confirm" });
  const cancel = el("button", { type: "button", text: "Cancel" });
  confirm.addEventListener("click", () => model.send({ action: "confirm", values: values() }));
  cancel.addEventListener("click", () => model.send({ action: "cancel" }));
  const confirmBox = el("div", {
    class: "sk-confirm smskit-confirm", role: "group", "aria-labelledby": `${id}-question`,
    hidden: true,
  }, question, confirm, cancel);
  confirmBox.addEventListener("keydown", (event) => {
    if (event.key === "Escape") model.send({ action: "cancel" });
  });
  const { progress, draw: drawProgress, events: progressEvents } = progressLine(model, "div");
  const { message, draw: drawMessage, events: messageEvents } = messageLine(model);

  // -- the phone: the first recipients' messages --------------------------------------------
  const phoneTitle = el("h3", { id: `${id}-phone` });
  const bubbles = el("ol", { "aria-labelledby": `${id}-phone` });
  const phone = el("div", { class: "sk-phone smskit-preview" }, phoneTitle, bubbles);

  // -- findings, grouped by what they do to the send ----------------------------------------
  const groups = {};
  const findings = el("div", { class: "sk-findings smskit-checks", "aria-label": "checks" });
  for (const [group, title] of [["blocks", "Blocks the send"], ["warning", "Warnings"], ["ok", "Passing"]]) {
    const list = el("div", { role: "list" });
    groups[group] = { list, section: el("section", { class: `sk-group-${group}` }, el("h3", { class: `sk-${group}`, text: title }), list) };
    findings.append(groups[group].section);
  }
  const result = el("div", { class: "sk-result smskit-result" });

  box.append(summary,
    el("div", { class: "sk-body" },
      el("div", { class: "sk-left" }, el("label", { for: area.id, text: "message text" }), editor, meter,
        settings, buttonRow, why, confirmBox, progress, message),
      el("div", { class: "sk-right" }, phone)),
    findings, el("div", { class: "sk-footer" }, result));
  root.append(box);

  // -- drawing -------------------------------------------------------------------------------
  // The editor grows with its text. Where the browser sizes a textarea to its content
  // (`field-sizing: content`: Chromium) a keystroke runs no script and forces no layout for
  // it; elsewhere the height is measured in the next animation frame (a measure right after
  // an edit would lay the whole page out once more), and set only when the text got shorter
  // (it may shrink) or overflows. Set here, not in composer.css: a notebook's saved widget
  // state may bring an older stylesheet (the host keeps one per widget class), not this code.
  const sizedByCss = typeof CSS !== "undefined" && CSS.supports("field-sizing", "content");
  if (sizedByCss) area.style.setProperty("field-sizing", "content");
  let grownFor = -1;
  let growing = false;
  const grow = () => {
    if (sizedByCss || growing) return;
    growing = true;
    requestAnimationFrame(() => {
      growing = false;
      const length = area.value.length;
      const shorter = length < grownFor;
      grownFor = length;
      if (!shorter && area.scrollHeight <= area.clientHeight) return;
      area.style.height = "auto";
      area.style.height = `${area.scrollHeight + 2}px`;
    });
  };
  // Each part of the panel is redrawn only when what it shows changed (a keystroke changes
  // a few figures, not the page): less to lay out and paint before the new figures show.
  const drawn = new Map();
  const changed = (part, value) => {
    const key = JSON.stringify(value === undefined ? null : value);
    if (drawn.get(part) === key) return false;
    drawn.set(part, key);
    return true;
  };
  // A changed text is the data of the node's one text node, changed in place: replacing the
  // node (textContent) rebuilds its part of the layout tree, a style recalc on top of the
  // layout the new text needs anyway. Attributes and styles are set only when they change.
  const setText = (node, text) => {
    const only = node.firstChild;
    if (only !== null && only === node.lastChild && only.nodeType === Node.TEXT_NODE) {
      if (only.data !== text) only.data = text;
    } else if (node.textContent !== text) {
      node.textContent = text;
    }
  };
  const setAttr = (node, name, value) => {
    if (node.getAttribute(name) !== value) node.setAttribute(name, value);
  };
  const setStyle = (node, name, value) => { if (node.style[name] !== value) node.style[name] = value; };
  // The backdrop under the editor: the text with the characters forcing UCS-2 marked (the
  // text itself transparent: only the marks show). With nothing to mark (or typed since the
  // last panel: the marks would be misplaced) it is empty, so a keystroke leaves it alone:
  // no text of its own to lay out and paint again under the editor's.
  let scrolled = 0;  // the editor's scrollTop, kept by its scroll events (reading it lays out)
  const drawMarks = () => {
    const state = model.get("state") || {};
    const marked = state.text === area.value && (state.runs || []).some(([, hot]) => hot);
    if (!changed("marks", marked ? state.runs : null)) return;
    backdrop.replaceChildren();
    if (!marked) return;
    for (const [run, hot] of state.runs) backdrop.append(hot ? el("mark", { text: run }) : run);
    backdrop.append("\u200b");  // a trailing newline keeps its line
    if (scrolled) backdrop.scrollTop = scrolled;
  };
  const drawPanel = () => {
    const state = model.get("state") || {};
    const m = state.meter;
    if (m) {
      setText(characters, plural(m.characters, "character"));
      setText(units, `${m.used} of ${m.per_segment} ${m.unit_name} in segment ${m.segments}`);
      setText(segments, plural(m.segments, "segment"));
      setText(encoding, m.encoding);
      setStyle(bar, "transform", `scaleX(${Math.min(1, m.used / m.per_segment)})`);
      if (meterBar.classList.contains("sk-ucs2") !== (m.encoding !== "GSM-7")) meterBar.classList.toggle("sk-ucs2");
      setAttr(meterBar, "aria-valuemax", String(m.per_segment));
      setAttr(meterBar, "aria-valuenow", String(m.used));
      setAttr(meterBar, "aria-valuetext", `${m.used} of ${m.per_segment} ${m.unit_name}, ${plural(m.segments, "segment")}, ${m.encoding}`);
    } else {
      setText(characters, plural(area.value.length, "character"));
      setText(units, "the text cannot be analysed");
      setText(segments, "");
      setText(encoding, "encoding unknown");
      setStyle(bar, "transform", "scaleX(0)");
    }
    if (changed("forcing", state.forcing)) forcing.replaceChildren();
    if ((state.forcing || []).length && !forcing.childElementCount) {
      forcing.append("forces UCS-2: ");
      state.forcing.forEach((f, i) => {
        forcing.append(el("mark", { text: f.char }), " ", el("code", { text: f.code }));
        if (i < state.forcing.length - 1) forcing.append(", ");
      });
    }
    if (forcing.hidden !== !(state.forcing || []).length) forcing.hidden = !forcing.hidden;
    setText(delivered, state.delivered
      ? `as delivered (the gateway's auto_optimize_text): ${state.delivered.encoding}, ${plural(state.delivered.segments, "segment")}`
      : "");
    if (delivered.hidden !== !state.delivered) delivered.hidden = !delivered.hidden;
    setText(fields, `fields: ${(state.fields || []).join(", ") || "none"}`
      + ((state.unknown_fields || []).length ? ` · unknown: ${state.unknown_fields.join(", ")}` : ""));
    drawMarks();

    const shown = state.bubbles || [];
    setText(phoneTitle, !state.recipients  // none given, or a table of no row
      ? "no recipients"
      : `first ${shown.length} of ${number(state.recipients)} recipients`);
    // the same recipients and findings as before: their texts change in place
    if (changed("bubbles", shown.map((b) => [b.row, b.to, Boolean(b.issue)]))) {
      bubbles.replaceChildren(...shown.map((b) => el("li", { class: b.issue ? "sk-excluded" : null },
        el("p", { class: "sk-to", text: b.to || `row ${b.row}` }),
        el("div", { class: "sk-bubble" }), el("p", { class: "sk-meta" }))));
    }
    shown.forEach((b, i) => {
      const item = bubbles.children[i];
      setText(item.children[1], b.text || "(no text)");
      setText(item.children[2], b.issue ? `excluded: ${b.issue}` : `${b.encoding} · ${plural(b.segments, "SMS")}`);
    });

    const found = state.findings || [];
    if (changed("findings", found.map((f) => [f.name, f.group]))) {
      for (const group of Object.values(groups)) group.list.replaceChildren();
      for (const f of found) {
        groups[f.group].list.append(el("span", { role: "listitem", class: `sk-badge sk-${f.group} smskit-finding` },
          el("b", { text: f.name }), document.createTextNode("")));
      }
      for (const group of Object.values(groups)) group.section.hidden = !group.list.childElementCount;
    }
    const badges = Object.fromEntries(Object.entries(groups).map(([g, { list }]) => [g, [...list.children]]));
    const next = { blocks: 0, warning: 0, ok: 0 };
    for (const f of found) setText(badges[f.group][next[f.group]++].lastChild, f.message);
  };
  const drawControls = () => {
    const controls = model.get("controls") || {};
    // a disabled button says why in its title (its accessible description); send also below
    for (const [action, label, title] of BUTTONS) {
      const c = controls[action] || {};
      buttons[action].disabled = !c.enabled;
      setAttr(buttons[action], "title", c.enabled ? title : `${label} is disabled: ${c.why || ""}`);
    }
    const send = controls.send || {};
    setText(why, send.enabled ? "" : `send is disabled: ${send.why || ""}`);
  };
  const drawSummary = () => {
    const s = model.get("summary") || {};
    setText(toSend, number(s.to_send));
    const out = s.excluded; // null while the text cannot be sent: nobody is excluded yet
    setText(excluded, s.recipients === null || s.recipients === undefined
      ? "no recipients" : `of ${number(s.recipients)}${out ? `, ${number(out)} excluded` : ""}`);
    setText(sms, number(s.sms));
    if (s.cost === null || s.cost === undefined) {
      setText(cost, "—");
      setText(costNote, s.source ? "unknown" : "press “estimate cost”");
    } else {
      setText(cost, `${s.cost.toLocaleString("en-US", { maximumFractionDigits: 4 })} ${s.unit || ""}`.trim());
      setText(costNote, s.source === "sent" ? "sent" : "estimate");
    }
  };
  const drawConfirmation = () => {
    const text = model.get("confirmation") || "";
    const was = !confirmBox.hidden;
    question.textContent = text;
    confirmBox.hidden = !text;
    // keyboard: the focus goes to Cancel (Enter or Escape cancels, Tab reaches Confirm), once
    // the host has finished handling the click that asked (JupyterLab refocuses its cell)
    if (text && !was) requestAnimationFrame(() => requestAnimationFrame(() => cancel.focus()));
  };
  const drawOptions = () => {
    const choices = model.get("choices") || {};
    const fill = (select, values, labels = {}) => {
      const current = select.value;
      select.replaceChildren(...values.map((v) => el("option", { value: v, text: labels[v] || v })));
      select.value = current;
    };
    fill(type, ["", ...(choices.type || [])], { "": "gateway default" });
    fill(purpose, choices.purpose || []);
  };
  const drawInputs = () => {
    if (area.value !== model.get("text")) {
      area.value = model.get("text");
      grow();
    }
    if (sender.value !== model.get("sender")) sender.value = model.get("sender");
    // a keystroke's change:text touches no other control (a menu's value set again costs)
    if (type.value !== model.get("sms_type")) type.value = model.get("sms_type");
    if (purpose.value !== model.get("purpose")) purpose.value = model.get("purpose");
    if (sendAt.value !== model.get("send_at")) sendAt.value = model.get("send_at");
    if (replies.checked !== Boolean(model.get("with_replies"))) replies.checked = !replies.checked;
  };
  const drawResult = () => { result.innerHTML = model.get("result_html") || ""; };

  // -- what the user does --------------------------------------------------------------------
  const set = (name, value) => {
    model.set(name, value);
    model.save_changes();
  };
  area.addEventListener("input", () => {
    set("text", area.value);
    grow();
    drawMarks();
  });
  area.addEventListener("scroll", () => {
    scrolled = area.scrollTop;
    backdrop.scrollTop = scrolled;
  });
  sender.addEventListener("input", () => set("sender", sender.value));
  sendAt.addEventListener("change", () => set("send_at", sendAt.value));
  type.addEventListener("change", () => set("sms_type", type.value));
  purpose.addEventListener("change", () => set("purpose", purpose.value));
  replies.addEventListener("change", () => set("with_replies", replies.checked));

  // drawn first to last: the menus are filled before the inputs choose in them
  const unfollow = follow(model, [
    ["change:choices", drawOptions],
    ["change:text", drawInputs], ["change:sender", drawInputs], ["change:sms_type", drawInputs],
    ["change:purpose", drawInputs], ["change:send_at", drawInputs], ["change:with_replies", drawInputs],
    ["change:state", drawPanel], ["change:controls", drawControls], ["change:summary", drawSummary],
    ["change:confirmation", drawConfirmation], ...progressEvents.map((e) => [e, drawProgress]),
    ...messageEvents.map((e) => [e, drawMessage]), ["change:result_html", drawResult],
  ]);
  grow();
  return unfollow;
}

export default { render };
