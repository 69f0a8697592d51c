// Queue timeline: per node, running jobs as bars from now to their expected end and waiting jobs
// at their expected start (the visibility API's forecast), coloured by class; the table beside it
// holds the same facts.
import { h, api, watch, optional, notesOf, BATCH, VISIBILITY, enc, legend, at, ago } from './dom.js';
import { TimelineChart } from './lanes.js';

let kept = null;
const DEFAULT_RUN_SECONDS = 600;
// the nodes whose lanes are read first (a screen holds a few lanes of a busy node), and the size
// of a page of a list read whole
const FIRST_SCREEN_NODES = 5;
const LIST_PAGE = 2000;
const OVERDUE_MIN_SECONDS = 5;

// The expected end of a running job, reckoned as the forecast reckons it (LearntRunTimes): the
// median of its type's recorded runs that lasted longer than it has run so far; past all of them,
// another tenth of its run so far; without recorded runs, the namespace's median, else 10 minutes.
export function expectedEnd(job, profiles, now) {
  const ns = job.metadata.namespace;
  const started = Date.parse(job.status.startedAt || job.status.admittedAt || new Date(now).toISOString());
  const elapsed = Math.max(0, Math.floor((now - started) / 1000));
  const median = (sorted) => sorted[Math.floor((sorted.length + 1) / 2) - 1];
  const overdue = () => now + Math.max(elapsed / 10, OVERDUE_MIN_SECONDS) * 1000;
  const own = profiles.find((p) => p.metadata.namespace === ns && p.metadata.name === job.spec.type);
  const samples = (p) => ((p.status && p.status.runTime && p.status.runTime.samples) || []).filter((v) => v >= 0);
  const runs = own ? samples(own).sort((a, b) => a - b) : [];
  if (job.spec.type && runs.length) {
    const longer = runs.filter((v) => v > elapsed);
    return { at: longer.length ? started + median(longer) * 1000 : overdue(), basis: longer.length ? `median of ${runs.length} recorded runs of ${job.spec.type}` : `overdue: longer than every recorded run of ${job.spec.type}` };
  }
  const pool = profiles.filter((p) => p.metadata.namespace === ns).flatMap(samples).sort((a, b) => a - b);
  const assumed = pool.length ? median(pool) : DEFAULT_RUN_SECONDS;
  const basis = pool.length ? `no recorded runs of its type: the median of ${pool.length} runs in ${ns}` : 'nothing recorded in its namespace: 10 minutes assumed';
  return { at: assumed > elapsed ? started + assumed * 1000 : overdue(), basis };
}

function nsPath(ns, plural, group) {
  return ns ? `${group}/namespaces/${enc(ns)}/${plural}` : `${group}/${plural}`;
}

function chosenNamespace(r) {
  if (r.query.get('queue')) return '';
  const q = r.query.get('ns');
  return q === null ? r.config.namespace : q === '*' ? '' : q;
}

// The namespaces a BatchQueue holds: its list, and those its selector's labels pick.
async function queueNamespaces(name, notes) {
  const q = await api(`${BATCH}/batchqueues/${enc(name)}`);
  const held = new Set((q.spec && q.spec.namespaces) || []);
  const labels = (q.spec && q.spec.namespaceSelector && q.spec.namespaceSelector.matchLabels) || null;
  if (labels) {
    const selector = Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',');
    const list = await optional(`/api/v1/namespaces?labelSelector=${enc(selector)}`, { items: [] }, notes);
    list.items.forEach((n) => held.add(n.metadata.name));
  }
  return held;
}

function runningEntry(j, profiles, now) {
  if (!j.status || !j.status.node || (j.status.phase !== 'Running' && j.status.phase !== 'Admitted')) return null;
  const end = expectedEnd(j, profiles, now);
  return { state: 'running', ns: j.metadata.namespace, name: j.metadata.name, node: j.status.node, cls: j.status.serviceClass || 'BestEffort', from: now, to: Math.max(end.at, now), reason: j.status.reason || j.status.phase, message: j.status.message || '', basis: end.basis };
}

// Between polls the page follows the jobs' watch: a decision (a job admitted, a new one queued, one
// ended) is drawn as it arrives; the forecast's expected starts come with the next poll.
function follow(k, path) {
  k.watching = true;
  let queued = false;
  let drawnAt = -Infinity;
  watch(path, k.stop.signal, (event) => {
    const j = event.object;
    if (event.type === 'ERROR' || !j || !j.metadata) return;
    const key = `${j.metadata.namespace}/${j.metadata.name}`;
    if (k.held && !k.held.has(j.metadata.namespace)) return;
    const st = j.status || {};
    const running = event.type === 'DELETED' ? null : runningEntry(j, k.profiles, Date.now());
    const old = k.entries.get(key);
    if (running) {
      k.entries.set(key, running);
    } else if (event.type !== 'DELETED' && st.phase === 'Queued' && st.reason) {
      k.entries.set(key, old && old.state === 'waiting' ? { ...old, reason: st.reason, message: st.message || '' }
        : { state: 'waiting', ns: j.metadata.namespace, name: j.metadata.name, node: '', cls: st.serviceClass || 'BestEffort', from: null, to: null, reason: st.reason, message: st.message || '', basis: 'decided since the last forecast read: its expected start comes with the next one', expectedIn: '' });
      if (!k.rows.includes('')) k.rows.push('');
    } else if (old) {
      k.entries.delete(key);
    } else {
      return;
    }
    // events that arrive together are drawn once, and a burst (a node lost with its jobs) at most
    // every 100 ms, so the page keeps up with it
    if (!queued) {
      queued = true;
      setTimeout(() => {
        queued = false;
        drawnAt = performance.now();
        k.chart.update([...k.entries.values()], [...k.rows], Date.now(), k.ns);
      }, Math.max(0, drawnAt + 100 - performance.now()));
    }
  }).catch(() => { /* the next poll watches again */ }).finally(() => { k.watching = false; });
}

// Every item of a list, read LIST_PAGE at a time (limit and continue), as one list.
async function wholeList(path, firstQuery = '') {
  const sep = path.includes('?') ? '&' : '?';
  const list = await api(`${path}${sep}limit=${LIST_PAGE}${firstQuery}`);
  for (let page = list; page.metadata && page.metadata.continue;) {
    page = await api(`${path}${sep}limit=${LIST_PAGE}&continue=${enc(page.metadata.continue)}`);
    list.items.push(...page.items);
  }
  return list;
}

function newTimeline() {
  const chart = new TimelineChart();
  const about = h('p', {});
  const noted = h('div', {});
  const root = h('div', {},
    legend([['Guaranteed', 'Guaranteed'], ['Burstable', 'Burstable'], ['BestEffort', 'BestEffort'], ['waiting', 'waiting (dashed): placed at its expected start']]),
    about, noted, chart.svg, chart.tableHolder);
  return { hash: location.hash, root, chart, about, noted, notes: '', stop: new AbortController(), watching: false, rest: null, entries: null };
}

// The chart's entries: the placed jobs running to their expected end, the waiting ones at their
// expected start, only those of the queue's namespaces when a queue is chosen.
function entriesOf(pending, placed, profiles, held, now) {
  const entries = new Map();
  for (const j of placed) {
    if (held && !held.has(j.metadata.namespace)) continue;
    const e = runningEntry(j, profiles, now);
    if (e) entries.set(`${e.ns}/${e.name}`, e);
  }
  for (const p of pending) {
    if (held && !held.has(p.metadata.namespace)) continue;
    // a job placed since the forecast's pass is drawn where it runs, not where it was expected
    if (entries.has(`${p.metadata.namespace}/${p.metadata.name}`)) continue;
    // a waiting job's bar is as long as the forecast expects it to run once started
    const start = p.expectedStart ? Date.parse(p.expectedStart) : null;
    const end = p.expectedEnd ? Date.parse(p.expectedEnd) : start === null ? null : start + 90 * 1000;
    entries.set(`${p.metadata.namespace}/${p.metadata.name}`, { state: 'waiting', ns: p.metadata.namespace, name: p.metadata.name, node: p.expectedNode || '', cls: p.serviceClass || 'BestEffort', from: start, to: end, reason: p.reason, message: p.message, basis: p.startBasis, position: p.position, expectedIn: p.expectedIn });
  }
  return entries;
}

// A forecast of an older pass than the last (given at once while the last pass's is computed) is
// said to be one, with its age: the waiting jobs stand where that pass expected them.
function forecastAge(pending, now) {
  const f = pending.forecast;
  return f && f.ofLastPass === false ? `Waiting jobs as forecast at the pass of ${at(f.passTime)} (${ago(f.passTime, now)}); the last pass's forecast is being computed. ` : '';
}

function describe(k, ns, held, notes, queue, partial, age) {
  const text = `${held ? `Queue ${queue}: namespaces ${[...held].sort().join(', ') || 'none'}. ` : ns ? `Namespace ${ns}. ` : 'All namespaces. '}${partial ? `The first ${partial} nodes; the others are being read. ` : ''}${age}Hover a bar for its reason; select it for the job.`;
  if (k.about.textContent !== text) k.about.textContent = text;
  if (k.notes !== notes.join('\n')) {
    k.notes = notes.join('\n');
    k.noted.replaceChildren(notesOf(notes) || '');
  }
}

// The lanes of the first nodes by name, which fill the first screen, each complete: the jobs
// placed there and those expected there. False when the nodes are few enough to read whole.
async function firstScreen(k, ns, held, heldNotes, queue) {
  const notes = [...heldNotes];
  const [nodes, profiles] = await Promise.all([
    optional(`${BATCH}/batchnodes?limit=${FIRST_SCREEN_NODES}`, { items: [], metadata: {} }, notes),
    optional(nsPath(ns, 'batchjobprofiles', BATCH), { items: [] }, notes)]);
  if (!nodes.metadata || !nodes.metadata.continue) return false;
  const names = nodes.items.map((n) => n.metadata.name).sort();
  const [pending, ...placed] = await Promise.all([
    api(`${nsPath(ns, 'pendingjobs', VISIBILITY)}?resourceVersion=0&expectedNode=${enc(names.join(','))}`),
    ...names.map((n) => api(`${nsPath(ns, 'batchjobs', BATCH)}?fieldSelector=${enc(`status.node=${n}`)}`))]);
  const now = Date.now();
  const entries = entriesOf(pending.items, placed.flatMap((l) => l.items), profiles.items, held, now);
  Object.assign(k, { entries, rows: names, ns, held, profiles: profiles.items });
  describe(k, ns, held, notes, queue, names.length, forecastAge(pending, now));
  k.chart.update([...entries.values()], [...names], now, ns);
  return true;
}

// Everything the timeline shows, read whole (the forecast and the placed jobs a page at a time),
// and the watch that follows the jobs between reads.
async function wholeRead(k, ns, held, heldNotes, queue) {
  const notes = [...heldNotes];
  // only the jobs placed on a node are read whole: the waiting ones come from the forecast with
  // their expected start and end, so 10,000 waiting jobs are not listed twice on every poll; any
  // recent forecast will do (resourceVersion=0), as the watch brings each decision meanwhile
  const [pending, placed, nodes, profiles] = await Promise.all([
    wholeList(nsPath(ns, 'pendingjobs', VISIBILITY), '&resourceVersion=0'),
    wholeList(`${nsPath(ns, 'batchjobs', BATCH)}?fieldSelector=${enc('status.node!=')}`),
    optional(`${BATCH}/batchnodes`, { items: [] }, notes),
    optional(nsPath(ns, 'batchjobprofiles', BATCH), { items: [] }, notes)]);
  if (k.stop.signal.aborted) return;
  const now = Date.now();
  const entries = entriesOf(pending.items, placed.items, profiles.items, held, now);
  const rows = nodes.items.map((n) => n.metadata.name).sort();
  if ([...entries.values()].some((e) => !e.node)) rows.push('');
  Object.assign(k, { entries, rows, ns, held, profiles: profiles.items });
  describe(k, ns, held, notes, queue, 0, forecastAge(pending, now));
  k.chart.update([...entries.values()], [...rows], now, ns);
  if (!k.watching) follow(k, `${nsPath(ns, 'batchjobs', BATCH)}?watch=true&resourceVersion=${enc(placed.metadata.resourceVersion)}`);
}

export const timelineView = {
  title: () => 'Queue timeline',
  leave() {
    if (kept) kept.stop.abort();
    kept = null;
  },
  controls(r) {
    const ns = chosenNamespace(r);
    const input = h('input', { id: 'ns', name: 'ns', value: ns, placeholder: 'all namespaces', size: 20, autocomplete: 'off' });
    const chosen = r.query.get('queue') || '';
    const queue = h('select', { id: 'queue', name: 'queue' }, h('option', { value: '' }, 'any'));
    const form = h('form', { class: 'filters', role: 'search' },
      h('label', { for: 'ns' }, 'Namespace'), input, ' ',
      h('label', { for: 'queue' }, 'or queue'), queue, ' ',
      h('button', { type: 'submit' }, 'Show'), ' ',
      h('button', { type: 'button', id: 'all-namespaces' }, 'All namespaces'));
    // the queues are listed when this user may read them; otherwise the choice stays "any"
    api(`${BATCH}/batchqueues`).then((list) => list.items.map((q) => q.metadata.name).sort().forEach((name) => {
      queue.append(h('option', { value: name, selected: name === chosen }, name));
    })).catch(() => queue.setAttribute('disabled', ''));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      location.hash = queue.value ? `#/timeline?queue=${enc(queue.value)}` : `#/timeline?ns=${enc(input.value.trim() || '*')}`;
    });
    form.querySelector('#all-namespaces').addEventListener('click', () => { location.hash = '#/timeline?ns=*'; });
    return form;
  },
  async body(r) {
    const ns = chosenNamespace(r);
    const heldNotes = [];
    const queue = r.query.get('queue');
    const held = queue ? await queueNamespaces(queue, heldNotes) : null;
    // the same page keeps its chart between polls, so unchanged lanes and rows stay as they are
    if (!kept || kept.hash !== location.hash || !kept.root.isConnected) {
      if (kept) kept.stop.abort();
      kept = newTimeline();
      // at size the first screen is read and drawn first, and the rest read behind it
      if (await firstScreen(kept, ns, held, heldNotes, queue)) {
        kept.rest = wholeRead(kept, ns, held, heldNotes, queue);
        kept.rest.catch(() => { /* the next poll, which awaits it, shows the refusal */ });
        return kept.root;
      }
    }
    const rest = kept.rest || wholeRead(kept, ns, held, heldNotes, queue);
    kept.rest = null;
    try {
      await rest;
    } catch (e) {
      if (!kept.entries) throw e;
      // a read refused or cut after the chart was drawn: the chart stays, as of its last read
      // (the watch goes on drawing decisions), and the refusal is said above it
      kept.notes = null;
      kept.noted.replaceChildren(h('p', { class: 'error', role: 'alert' }, `${e.message} The chart shows the last read.`));
    }
    return kept.root;
  },
};
