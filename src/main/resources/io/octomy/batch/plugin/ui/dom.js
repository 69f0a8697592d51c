// Elements are built with textContent and attributes only: names and messages from the API can
// never become markup.
const SVG_NS = 'http://www.w3.org/2000/svg';

function build(el, attrs, kids) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined && v !== false) el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

export const h = (tag, attrs, ...kids) => build(document.createElement(tag), attrs, kids);
export const s = (tag, attrs, ...kids) => build(document.createElementNS(SVG_NS, tag), attrs, kids);

export const BATCH = '/apis/batch.octomy.io/v1alpha1';
export const VISIBILITY = '/apis/visibility.batch.octomy.io/v1alpha1';

/** An answer the API refused, with the API's own sentence. */
export class Refusal extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

export async function api(path, accept = 'application/json') {
  // The forwarder answers only requests that carry X-Octomy-UI, which another site cannot add.
  const r = await fetch(path, { headers: { Accept: accept, 'X-Octomy-UI': '1' }, cache: 'no-store' });
  const text = await r.text();
  if (!r.ok) {
    let message = text;
    try { message = JSON.parse(text).message || text; } catch (e) { /* not a Status */ }
    throw new Refusal(r.status, `${path}: ${message}`);
  }
  return accept === 'application/json' ? JSON.parse(text) : text;
}

/**
 * A watch through the forwarder: each event (a line of JSON) handed to onEvent as it arrives,
 * until the API server ends the watch or the signal aborts it.
 */
export async function watch(path, signal, onEvent) {
  const r = await fetch(path, { headers: { Accept: 'application/json', 'X-Octomy-UI': '1' }, cache: 'no-store', signal });
  if (!r.ok) throw new Refusal(r.status, `${path}: ${r.status}`);
  const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      if (line.trim()) onEvent(JSON.parse(line));
    }
  }
}

/**
 * A read that may be refused without spoiling the view (a user who may read jobs but not nodes,
 * events or profiles): the fallback, with the refusal's sentence kept for a note.
 */
export async function optional(path, fallback, notes) {
  try {
    return await api(path);
  } catch (e) {
    notes.push(e.message);
    return fallback;
  }
}

export function notesOf(notes) {
  return notes.length ? h('p', { class: 'note' }, `Not shown: ${notes.join('; ')}`) : null;
}

export const enc = encodeURIComponent;
export const jobHref = (ns, name) => `#/job/${enc(ns)}/${enc(name)}`;

/** A table whose header cells name the columns; a row's cells are values or elements. */
export function table(caption, headers, rows, attrs = {}) {
  return h('table', attrs,
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, headers.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : null }, c.label || c)))),
    h('tbody', {}, rows.map((r) => h('tr', r.attrs || {}, r.cells.map((c, i) =>
      i === 0 ? h('th', { scope: 'row', ...(c && c.attrs) }, cellValue(c)) : h('td', { class: headers[i].num ? 'num' : null, ...(c && c.attrs) }, cellValue(c)))))));
}

function cellValue(c) {
  if (c && typeof c === 'object' && !(c instanceof Node) && 'value' in c) return c.value;
  return c === null || c === undefined ? '' : c;
}

export function facts(pairs) {
  return h('dl', { class: 'facts' }, pairs.filter((p) => p[1] !== undefined && p[1] !== null && p[1] !== '').map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

/** "12s", "4m", "2h5m": how long ago or ahead, from seconds. */
export function span(seconds) {
  const t = Math.abs(Math.round(seconds));
  if (t < 60) return `${t}s`;
  if (t < 3600) return `${Math.floor(t / 60)}m${t % 60 ? `${t % 60}s` : ''}`;
  const m = Math.floor((t % 3600) / 60);
  return `${Math.floor(t / 3600)}h${m ? `${m}m` : ''}`;
}

export const at = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '');
export const ago = (iso, now) => (iso ? `${span((now - Date.parse(iso)) / 1000)} ago` : '');

export function condition(obj, type) {
  return ((obj.status && obj.status.conditions) || []).find((c) => c.type === type);
}

export function keys(...maps) {
  return [...new Set(maps.flatMap((m) => Object.keys(m || {})))].sort();
}

export function legend(items) {
  return h('p', { class: 'legend' }, items.map(([cls, label]) => h('span', {}, h('span', { class: `swatch ${cls}`, 'aria-hidden': 'true' }), label)));
}
