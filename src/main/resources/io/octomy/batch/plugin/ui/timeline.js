// Queue timeline: per node, running jobs as bars from now to their expected end and waiting jobs
// at their expected start (the visibility API's forecast), coloured by class; the table beside it
// holds the same facts.
import { h, s, api, optional, notesOf, BATCH, VISIBILITY, enc, jobHref, table, at, span, legend } from './dom.js';

const LEFT = 150;
const WIDTH = 760;
const ROW = 30;
const DEFAULT_RUN_SECONDS = 600;
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

export const timelineView = {
  title: () => 'Queue timeline',
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
    const notes = [];
    const [pending, jobs, nodes, profiles] = await Promise.all([
      api(nsPath(ns, 'pendingjobs', VISIBILITY)), api(nsPath(ns, 'batchjobs', BATCH)),
      optional(`${BATCH}/batchnodes`, { items: [] }, notes),
      optional(nsPath(ns, 'batchjobprofiles', BATCH), { items: [] }, notes)]);
    const held = r.query.get('queue') ? await queueNamespaces(r.query.get('queue'), notes) : null;
    if (held) {
      pending.items = pending.items.filter((p) => held.has(p.metadata.namespace));
      jobs.items = jobs.items.filter((j) => held.has(j.metadata.namespace));
    }
    const now = Date.now();
    const running = jobs.items.filter((j) => j.status && (j.status.phase === 'Running' || j.status.phase === 'Admitted') && j.status.node);
    const byKey = new Map(jobs.items.map((j) => [`${j.metadata.namespace}/${j.metadata.name}`, j]));
    // a waiting job's bar is as long as it is expected to run once started
    const runTime = (key, start) => {
      const j = byKey.get(key);
      if (!j || start === null) return 90 * 1000;
      return expectedEnd({ metadata: j.metadata, spec: j.spec, status: { startedAt: new Date(start).toISOString() } }, profiles.items, start).at - start;
    };
    const entries = [];
    for (const j of running) {
      const end = expectedEnd(j, profiles.items, now);
      entries.push({ state: 'running', ns: j.metadata.namespace, name: j.metadata.name, node: j.status.node, cls: j.status.serviceClass || 'BestEffort', from: now, to: Math.max(end.at, now), reason: j.status.reason || j.status.phase, message: j.status.message || '', basis: end.basis });
    }
    for (const p of pending.items) {
      const start = p.expectedStart ? Date.parse(p.expectedStart) : null;
      const key = `${p.metadata.namespace}/${p.metadata.name}`;
      entries.push({ state: 'waiting', ns: p.metadata.namespace, name: p.metadata.name, node: p.expectedNode || '', cls: p.serviceClass || 'BestEffort', from: start, to: start === null ? null : start + runTime(key, start), reason: p.reason, message: p.message, basis: p.startBasis, position: p.position, expectedIn: p.expectedIn });
    }
    const rows = nodes.items.map((n) => n.metadata.name).sort();
    if (entries.some((e) => !e.node)) rows.push('');
    // the axis ends a little after the last expected end or start, so near work is not squeezed
    const last = Math.max(now, ...entries.map((e) => e.to || now));
    const horizon = Math.max(now + 60 * 1000, now + (last - now) * 1.25 + 30 * 1000);
    const x = (t) => LEFT + ((Math.min(t, horizon) - now) / (horizon - now)) * WIDTH;
    const lanes = new Map(rows.map((name) => [name, []]));
    entries.forEach((e) => { if (!lanes.has(e.node)) { lanes.set(e.node, []); rows.push(e.node); } lanes.get(e.node).push(e); });
    let y = 24;
    const svg = s('svg', { width: LEFT + WIDTH + 60, role: 'img', 'aria-label': `Timeline of ${entries.length} jobs: running ones to their expected end, waiting ones from their expected start, per node; the table below has the same facts.`, class: 'timeline' });
    for (let i = 0; i <= 6; i++) {
      const t = now + ((horizon - now) * i) / 6;
      svg.append(s('line', { class: 'grid', x1: x(t), x2: x(t), y1: 16, y2: 2000 }), s('text', { x: x(t) - 12, y: 12 }, i === 0 ? 'now' : `+${span((t - now) / 1000)}`));
    }
    for (const name of rows) {
      const lane = lanes.get(name).sort((a, b) => (a.from ?? Infinity) - (b.from ?? Infinity));
      const height = Math.max(1, lane.length) * ROW;
      svg.append(s('text', { x: 4, y: y + 19 }, name || 'no expected node'));
      lane.forEach((e, k) => {
        const top = y + k * ROW;
        const title = `${e.ns}/${e.name} (${e.cls}) ${e.state === 'running' ? `running, expected to end ${at(new Date(e.to).toISOString())} (${e.basis})` : e.from ? `waiting, expected to start ${at(new Date(e.from).toISOString())} (in ${e.expectedIn})` : `waiting, no expected start: ${e.basis}`}. ${e.reason}: ${e.message}`;
        const from = e.from ?? horizon - 90 * 1000;
        const width = Math.max(e.to ? x(e.to) - x(from) : 90, 6);
        svg.append(s('a', { href: jobHref(e.ns, e.name), class: `bar ${e.state} ${e.cls}`, 'data-job': `${e.ns}/${e.name}`, 'data-state': e.state, 'data-node': e.node, 'data-from': e.from ? new Date(e.from).toISOString() : '' },
          s('title', {}, title),
          s('rect', { x: x(from), y: top + 2, width, height: ROW - 6, rx: 3 }),
          s('text', { x: x(from) + 4, y: top + 18 }, e.name)));
      });
      y += height + 6;
      svg.append(s('line', { class: 'grid', x1: 0, x2: LEFT + WIDTH, y1: y - 3, y2: y - 3 }));
    }
    svg.setAttribute('height', y + 4);
    const sorted = [...entries].sort((a, b) => (a.state === b.state ? (a.from ?? Infinity) - (b.from ?? Infinity) : a.state === 'running' ? -1 : 1));
    return h('div', {},
      legend([['Guaranteed', 'Guaranteed'], ['Burstable', 'Burstable'], ['BestEffort', 'BestEffort'], ['waiting', 'waiting (dashed): placed at its expected start']]),
      h('p', {}, held ? `Queue ${r.query.get('queue')}: namespaces ${[...held].sort().join(', ') || 'none'}. ` : ns ? `Namespace ${ns}. ` : 'All namespaces. ', 'Hover a bar for its reason; select it for the job.'),
      notesOf(notes),
      svg,
      table('Running and waiting jobs', ['Job', 'Node', 'Class', 'State', 'Reason', 'Expected', 'Basis'],
        sorted.map((e) => ({ attrs: { 'data-job': `${e.ns}/${e.name}` }, cells: [h('a', { href: jobHref(e.ns, e.name) }, ns ? e.name : `${e.ns}/${e.name}`), e.node, e.cls, e.state, e.reason, e.state === 'running' ? `ends ~${at(new Date(e.to).toISOString())}` : e.from ? `starts ${at(new Date(e.from).toISOString())} (in ${e.expectedIn})` : 'unknown', e.basis] })),
        { class: 'queue-table' }));
  },
};
