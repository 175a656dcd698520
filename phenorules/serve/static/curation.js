// The curation page: annotate a text or a file with /annotate, show the phenotypes in the
// text (colour by patient, negated struck through, details on hover), let the curator
// accept, reject or change each one, and download the result through /export/<format>.
// Data is put into the page with textContent only: nothing from a response becomes markup.
// The colours and the flags a mention can have come from the server (phenorules/formats/view.py),
// as the HTML view has them; each mention lists the flags that hold, with their cues.
"use strict";

const CONFIG = JSON.parse(document.getElementById("config").textContent);
const EXPORT_NAMES = { jsonl: "curated JSONL", phenopackets: "Phenopackets" };

const state = { info: null, articles: [] };

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "className") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function setStatus(message, isError = false) {
  const status = document.getElementById("status");
  status.textContent = message;
  status.className = isError ? "error" : "";
}

async function requestJson(url, options = {}) {
  const response = await fetch(url, options);
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    throw new Error(body && body.error ? body.error.message : `${response.status} ${response.statusText}`);
  }
  return body;
}

async function loadInfo() {
  try {
    state.info = await requestJson("/info");
    document.getElementById("info").textContent =
      `HPO ${state.info.hpo_release} · ${state.info.terms} terms · stages ${state.info.stages.join(" → ")} · phenorules ${state.info.phenorules}`;
    const downloads = document.getElementById("downloads");
    for (const name of state.info.exports) {
      downloads.append(element("button", { type: "button", id: `download-${name}`, text: EXPORT_NAMES[name] || name, onclick: () => download(name) }));
    }
  } catch (error) {
    setStatus(`cannot reach the server: ${error.message}`, true);
  }
}

// The inputs show only what the page shows the result of: once a text is annotated the
// file input is emptied, once a file is, the text box (a refused input leaves the box and
// the result as they were). A file input is emptied as soon as its file is read, so that
// the same file can be chosen again.
async function annotate(body, source, emptied) {
  setStatus("annotating…");
  try {
    const result = await requestJson("/annotate", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    state.articles = result.articles.map((article) => ({
      ...article,
      mentions: article.mentions.map((mention) => ({ ...mention, status: "unreviewed", predicted_id: mention.hpo_id })),
    }));
    emptied.value = "";
    render();
    const count = state.articles.reduce((sum, article) => sum + article.mentions.length, 0);
    setStatus(`${source}: ${count} phenotype mention${count === 1 ? "" : "s"} in ${state.articles.length} article${state.articles.length === 1 ? "" : "s"}`);
  } catch (error) {
    setStatus(`${source}: ${error.message}`, true);
  }
}

function annotateText() {
  const text = document.getElementById("input-text").value;
  if (!text.trim()) {
    setStatus("Nothing to annotate: paste a text or upload a file.");
    return;
  }
  annotate({ text }, "the pasted text", document.getElementById("upload"));
}

function annotateFile(event) {
  const file = event.target.files[0];
  if (!file) return;
  if (file.size === 0) {
    setStatus(`${file.name}: the file is empty, nothing to annotate`, true);
    return;
  }
  if (state.info && file.size > state.info.max_request_bytes) {
    setStatus(`${file.name}: larger than the server's limit of ${state.info.max_request_bytes} bytes`, true);
    return;
  }
  const reader = new FileReader();
  reader.onload = () => {
    event.target.value = "";
    annotate({ document: reader.result, name: file.name }, file.name, document.getElementById("input-text"));
  };
  reader.onerror = () => setStatus(`${file.name}: cannot read the file`, true);
  reader.readAsText(file);
}

function patientColours(article) {
  const ids = [...article.patients];
  for (const mention of article.mentions) for (const patient of mention.patients) if (!ids.includes(patient)) ids.push(patient);
  const palette = CONFIG.patient_colours;
  return new Map(ids.map((patient, i) => [patient, palette[i % palette.length]]));
}

// A mention's colour is its patient's; a flag's look (negated: grey, struck through) is
// its class flag-<field> in curation.css.
function mentionColour(mention, colours) {
  if (mention.patients.length > 1) return CONFIG.several_patients_colour;
  return mention.patients.length ? colours.get(mention.patients[0]) : CONFIG.no_patient_colour;
}

function flagText(flag) {
  return flag.cue ? `${flag.field} “${flag.cue}”` : flag.field;
}

// Of overlapping mentions the longest (then the first) is highlighted, as spaCy's
// filter_spans picks them; every mention has its row in the table.
function shownMentions(mentions) {
  const order = mentions.map((mention, index) => index);
  order.sort((a, b) => (mentions[b].end - mentions[b].start) - (mentions[a].end - mentions[a].start) || mentions[a].start - mentions[b].start);
  const shown = [];
  for (const index of order) {
    const m = mentions[index];
    if (shown.every((other) => m.end <= mentions[other].start || m.start >= mentions[other].end)) shown.push(index);
  }
  return shown.sort((a, b) => mentions[a].start - mentions[b].start);
}

function render() {
  const main = document.getElementById("articles");
  main.replaceChildren(...state.articles.map(renderArticle));
  document.getElementById("downloads").hidden = state.articles.length === 0;
}

function renderArticle(article, articleIndex) {
  const colours = patientColours(article);
  return element(
    "article",
    { id: `article-${articleIndex}` },
    element("h2", { text: article.id + (article.pmid ? ` (PMID ${article.pmid})` : "") }),
    renderLegend(article, colours),
    renderText(article, articleIndex, colours),
    renderTable(article, articleIndex),
  );
}

// Only what the highlights show: the patients a mention is attributed to alone, several
// and no patient, and the flags some mention has (as the HTML view's legend).
function renderLegend(article, colours) {
  const legend = element("p", { className: "legend" });
  const mentions = shownMentions(article.mentions).map((index) => article.mentions[index]);
  for (const [patient, colour] of colours) {
    if (mentions.some((m) => m.patients.length === 1 && m.patients[0] === patient)) legend.append(chip(patient, colour));
  }
  if (mentions.some((m) => m.patients.length > 1)) legend.append(chip("several patients", CONFIG.several_patients_colour));
  if (mentions.some((m) => m.patients.length === 0)) legend.append(chip("no patient", CONFIG.no_patient_colour));
  for (const field of CONFIG.flags) {
    if (mentions.some((m) => m.flags.some((flag) => flag.field === field))) legend.append(chip(field, CONFIG.no_patient_colour, `flag-${field}`));
  }
  return legend;
}

function chip(name, colour, className = "") {
  const span = element("span", { text: name, className });
  span.style.setProperty("--colour", colour);
  return span;
}

function renderText(article, articleIndex, colours) {
  const container = element("div", { className: "text" });
  const shown = shownMentions(article.mentions);
  let section = null;
  for (const passage of article.passages) {
    if (passage.section_type !== section && article.passages.length > 1) container.append(element("h3", { text: passage.section_type }));
    section = passage.section_type;
    const paragraph = element("p");
    let cursor = passage.start;
    for (const index of shown) {
      const mention = article.mentions[index];
      if (mention.start < passage.start || mention.start >= passage.end) continue;
      paragraph.append(article.text.slice(cursor, mention.start));
      paragraph.append(renderMark(article, articleIndex, index, colours));
      cursor = Math.min(mention.end, passage.end);
    }
    paragraph.append(article.text.slice(cursor, passage.end));
    container.append(paragraph);
  }
  return container;
}

function renderMark(article, articleIndex, index, colours) {
  const mention = article.mentions[index];
  const classes = ["mention", mention.status, ...mention.flags.map((flag) => `flag-${flag.field}`)];
  const mark = element("mark", {
    className: classes.join(" "),
    id: `mark-${articleIndex}-${index}`,
    "data-hpo-id": mention.hpo_id,
    "aria-label": `${mention.hpo_id} ${mention.label || ""}`,
    text: article.text.slice(mention.start, mention.end),
    onmouseenter: (event) => showTooltip(event.currentTarget, mention),
    onmouseleave: hideTooltip,
    onclick: () => select(articleIndex, index),
  });
  mark.style.setProperty("--colour", mentionColour(mention, colours));
  return mark;
}

function showTooltip(target, mention) {
  const tooltip = document.getElementById("tooltip");
  const lines = [
    element("div", { className: "id", text: `${mention.hpo_id} ${mention.hpo_id === "-1" ? "(no HPO term)" : mention.label}` }),
    element("div", { text: ["patient: " + (mention.patients.join(", ") || "none"), ...mention.flags.map(flagText), mention.status].join(" · ") }),
  ];
  if (mention.hpo_id !== mention.predicted_id) lines.push(element("div", { text: `predicted: ${mention.predicted_id}` }));
  lines.push(element("div", { className: "provenance" }, ...provenanceText(mention)));
  tooltip.replaceChildren(...lines);
  const box = target.getBoundingClientRect();
  tooltip.style.left = `${window.scrollX + box.left}px`;
  tooltip.style.top = `${window.scrollY + box.bottom + 6}px`;
  tooltip.hidden = false;
}

function hideTooltip() {
  document.getElementById("tooltip").hidden = true;
}

function select(articleIndex, index) {
  for (const node of document.querySelectorAll(".selected")) node.classList.remove("selected");
  const row = document.getElementById(`row-${articleIndex}-${index}`);
  const mark = document.getElementById(`mark-${articleIndex}-${index}`);
  if (mark) mark.classList.add("selected");
  if (row) {
    row.classList.add("selected");
    row.scrollIntoView({ block: "nearest" });
  }
}

function renderTable(article, articleIndex) {
  const head = element("tr", {}, ...["#", "text", "offsets", "HPO id", "label", "patient", "flags", "provenance", "status", "curate"].map((name) => element("th", { text: name })));
  const rows = article.mentions.map((mention, index) => renderRow(article, articleIndex, index));
  return element("table", { className: "mentions" }, element("thead", {}, head), element("tbody", {}, ...rows));
}

// A provenance is rules joined by " · ", each of tokens joined by separators
// ("context:NEGATED_EXISTENCE:no:context_rules.tsv:85"): a line breaks after a separator
// (a <wbr> there), never inside a token.
const PROVENANCE_SEPARATOR = /(?<=[;:+>|,/=])/;

function provenanceText(mention) {
  return mention.provenance.join(" · ").split(PROVENANCE_SEPARATOR).flatMap((piece, i) => (i ? [element("wbr"), piece] : [piece]));
}

// The uses of a short form are the mentions of the same text whose abbreviation rule
// names the same sense ("abbreviation:defined:global developmental delay", with
// "|defined_uses" on uses after the definition); a mention of no short form is its only use.
function shortFormSense(mention) {
  const rule = mention.provenance.find((entry) => entry.startsWith("abbreviation:"));
  return rule === undefined ? null : `${mention.text}\n${rule.split("|")[0]}`;
}

function shortFormUses(article, index) {
  const sense = shortFormSense(article.mentions[index]);
  if (sense === null) return [index];
  return article.mentions.flatMap((mention, i) => (i === index || (mention.status !== "rejected" && shortFormSense(mention) === sense) ? [i] : []));
}

function renderRow(article, articleIndex, index) {
  const mention = article.mentions[index];
  const idInput = element("input", { type: "text", list: "term-options", placeholder: "new id or term name", id: `change-${articleIndex}-${index}`, "aria-label": "new HPO id" });
  idInput.addEventListener("input", () => suggest(idInput.value));
  const uses = shortFormUses(article, index);
  const everyUse = element("input", { type: "checkbox", className: "every-use", checked: "" });
  const actions = element(
    "td",
    { className: "actions" },
    element("button", { type: "button", text: "Accept", className: "accept", onclick: () => setDecision(articleIndex, index, "accepted") }),
    " ",
    element("button", { type: "button", text: "Reject", className: "reject", onclick: () => setDecision(articleIndex, index, "rejected") }),
    " ",
    idInput,
    " ",
    element("button", { type: "button", text: "Set id", className: "change", onclick: () => changeId(articleIndex, everyUse.checked ? uses : [index], index, idInput.value) }),
  );
  if (uses.length > 1) actions.append(element("label", { className: "uses" }, everyUse, ` for all ${uses.length} uses of “${mention.text}”`));
  if (mention.error) actions.append(rowError(mention.error));
  return element(
    "tr",
    { id: `row-${articleIndex}-${index}`, className: mention.status, onclick: (event) => { if (event.target.tagName === "TD") select(articleIndex, index); } },
    element("td", { text: String(index + 1) }),
    element("td", { text: mention.text }),
    element("td", { text: `${mention.start}–${mention.end}` }),
    element("td", { text: mention.hpo_id }),
    element("td", { text: mention.hpo_id === "-1" ? "(no HPO term)" : mention.label || "" }),
    element("td", { text: mention.patients.join(", ") || "–" }),
    element("td", { className: "flags", text: mention.flags.map(flagText).join(", ") }),
    element("td", { className: "provenance" }, ...provenanceText(mention)),
    element("td", { className: `status-${mention.status}`, text: mention.status }),
    actions,
  );
}

function setDecision(articleIndex, index, status) {
  const mention = state.articles[articleIndex].mentions[index];
  mention.status = status === "accepted" && mention.hpo_id !== mention.predicted_id ? "changed" : status;
  mention.error = "";
  refreshArticle(articleIndex, index);
}

// The id the curator typed (or the best match of a name) for the mentions ``indices`` (the
// row's, or every use of its short form); a failure is said at the row, its text kept.
async function changeId(articleIndex, indices, index, wanted) {
  if (!wanted.trim()) return;
  let terms;
  try {
    ({ terms } = await requestJson(`/terms?limit=1&q=${encodeURIComponent(wanted)}`));
  } catch (error) {
    showRowError(articleIndex, index, error.message);
    return;
  }
  if (!terms.length) {
    showRowError(articleIndex, index, `no term of HPO ${state.info.hpo_release} matches ${JSON.stringify(wanted)}`);
    return;
  }
  const [term] = terms;
  const mentions = state.articles[articleIndex].mentions;
  for (const mention of indices.map((i) => mentions[i])) {
    Object.assign(mention, { hpo_id: term.id, label: term.label, error: "" });
    mention.status = mention.hpo_id === mention.predicted_id ? "accepted" : "changed";
  }
  refreshArticle(articleIndex, index);
  const others = indices.length - 1;
  setStatus(`mention ${index + 1}${others ? ` and ${others} other use${others === 1 ? "" : "s"} of “${mentions[index].text}”` : ""}: ${term.id} ${term.label}`);
}

function rowError(message) {
  return element("div", { className: "row-error", role: "alert", text: message });
}

function showRowError(articleIndex, index, message) {
  state.articles[articleIndex].mentions[index].error = message;
  const cell = document.querySelector(`#row-${articleIndex}-${index} td.actions`);
  cell.querySelector(".row-error")?.remove();
  cell.append(rowError(message));
}

function refreshArticle(articleIndex, index) {
  const old = document.getElementById(`article-${articleIndex}`);
  old.replaceWith(renderArticle(state.articles[articleIndex], articleIndex));
  select(articleIndex, index);
}

let suggestTimer = null;
function suggest(query) {
  clearTimeout(suggestTimer);
  suggestTimer = setTimeout(async () => {
    if (query.trim().length < 2) return;
    try {
      const { terms } = await requestJson(`/terms?limit=15&q=${encodeURIComponent(query)}`);
      const options = terms.map((term) => element("option", { value: term.id, label: term.match === term.label ? term.label : `${term.label} (${term.match})` }));
      document.getElementById("term-options").replaceChildren(...options);
    } catch (error) {
      setStatus(error.message, true);
    }
  }, 150);
}

function curatedPayload() {
  return {
    articles: state.articles.map((article) => ({
      id: article.id,
      pmid: article.pmid,
      patient: article.record.patient,
      mentions: article.mentions.map(({ start, end, text, hpo_id, label, negated, uncertain, hypothetical, historical, family, assertion_cues, patients, provenance, predicted_id, status }) => (
        { start, end, text, hpo_id, label, negated, uncertain, hypothetical, historical, family, assertion_cues, patients, provenance, predicted_id, status })),
    })),
  };
}

async function download(name) {
  if (!state.articles.length) {
    setStatus("Nothing to download yet: annotate a text or a file first.");
    return;
  }
  try {
    const response = await fetch(`/export/${name}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(curatedPayload()) });
    if (!response.ok) {
      const body = await response.json().catch(() => null);
      throw new Error(body && body.error ? body.error.message : `${response.status} ${response.statusText}`);
    }
    const url = URL.createObjectURL(await response.blob());
    const link = element("a", { href: url, download: `curated-${name}.jsonl` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    setStatus(`downloaded curated-${name}.jsonl`);
  } catch (error) {
    setStatus(error.message, true);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("annotate").addEventListener("click", annotateText);
  document.getElementById("upload").addEventListener("change", annotateFile);
  loadInfo();
});
