// Teams: each BatchQueue's share of the pool against the share it deserves, its weight, min and
// max, and its fair-share term over time. Job types: each BatchJobProfile's request against what
// its runs used.
import { h, s, api, BATCH, table, keys, legend } from './dom.js';

const WIDTH = 360;
// The status keeps only the term now: its history is what this page saw while open, one sample
// each time the term or share changed (so an unchanged view is left as it is between polls).
const KEPT_SAMPLES = 20;
const termHistory = new Map();

function sampleTerm(queue, now) {
  const st = queue.status || {};
  if (st.fairShareTerm === undefined) return [];
  const name = queue.metadata.name;
  const samples = termHistory.get(name) || [];
  const last = samples[samples.length - 1];
  if (!last || last.term !== st.fairShareTerm || last.share !== st.share) {
    samples.push({ at: now, term: st.fairShareTerm, share: st.share || '' });
    samples.splice(0, samples.length - KEPT_SAMPLES);
    termHistory.set(name, samples);
  }
  return samples;
}

function termPlot(name, samples) {
  const height = 110;
  const left = 50;
  const top = Math.max(1, ...samples.map((p) => p.term));
  const first = samples[0].at;
  const spanMs = Math.max(1, samples[samples.length - 1].at - first);
  const x = (t) => left + (samples.length > 1 ? ((t - first) / spanMs) * WIDTH : 0);
  const y = (v) => 10 + (1 - v / top) * (height - 30);
  // a step line: the term held its value until the next change was seen
  const points = samples.flatMap((p, i) => (i === 0 ? [[x(p.at), y(p.term)]] : [[x(p.at), y(samples[i - 1].term)], [x(p.at), y(p.term)]]));
  if (samples.length === 1) points.push([left + WIDTH, y(samples[0].term)]);
  return s('svg', { width: left + WIDTH + 20, height, role: 'img', 'aria-label': `${name}: fair-share term over ${samples.length} changes seen while this page is open, now ${samples[samples.length - 1].term}; the table beside it has the numbers.` },
    s('line', { class: 'grid', x1: left, x2: left, y1: y(top), y2: y(0) }),
    s('line', { class: 'grid', x1: left, x2: left + WIDTH, y1: y(0), y2: y(0) }),
    s('text', { x: 0, y: y(top) + 4 }, String(top)), s('text', { x: 0, y: y(0) + 4 }, '0'),
    s('text', { x: left, y: height - 2 }, 'seen while this page is open, oldest first'),
    s('polyline', { class: 'term', points: points.map((p) => p.join(',')).join(' ') }),
    samples.map((p) => s('circle', { class: 'termpoint', cx: x(p.at), cy: y(p.term), r: 3, 'data-term': p.term }, s('title', {}, `${new Date(p.at).toLocaleTimeString()}: term ${p.term}, share ${p.share}`))));
}

function termHistoryOf(queue, now) {
  const name = queue.metadata.name;
  const samples = sampleTerm(queue, now);
  if (!samples.length) return h('p', {}, 'No fair-share term yet: the controller writes it after its next pass.');
  return h('div', { class: 'pair term-history' }, termPlot(name, samples),
    table(`Fair-share term of ${name} as seen`, ['Seen at', { label: 'Term', num: true }, 'Share (now/deserved)'],
      samples.map((p) => ({ cells: [new Date(p.at).toLocaleTimeString(), String(p.term), p.share] }))));
}

function shareBars(queue) {
  const [used, deserved] = String((queue.status || {}).share || '').split('/').map(Number);
  const known = Number.isFinite(used) && Number.isFinite(deserved);
  const top = Math.max(1, known ? Math.max(used, deserved) : 1);
  const x = (v) => (v / top) * WIDTH;
  return s('svg', { width: WIDTH + 10, height: 34, role: 'img', 'aria-label': known ? `${queue.metadata.name}: share ${used} of the pool, deserves ${deserved}` : `${queue.metadata.name}: no share yet` },
    s('rect', { class: 'capacity', x: 0, y: 6, width: WIDTH, height: 22 }),
    known ? s('rect', { class: 'share', x: 0, y: 6, width: x(used), height: 22 }, s('title', {}, `share ${used}`)) : null,
    known ? s('line', { class: 'deserved', x1: x(deserved), x2: x(deserved), y1: 0, y2: 34 }, s('title', {}, `deserved ${deserved}`)) : null);
}

export const teamsView = {
  title: () => 'Teams',
  async body() {
    const list = await api(`${BATCH}/batchqueues`);
    const queues = list.items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    if (!queues.length) return h('p', {}, 'No BatchQueues: every namespace shares the pool alone (see docs/queues.md).');
    const now = Date.now();
    return h('div', {},
      legend([['share', 'dominant share of the pool now'], ['capacity', 'the whole pool']]),
      h('p', {}, 'The black line is the share each queue deserves among its siblings with work (by weight). The fair-share term is what its Queued jobs add to their priority now; its plot is what this page saw while open.'),
      queues.map((q) => {
        const sp = q.spec || {};
        const st = q.status || {};
        const names = keys(st.usage, sp.min, sp.max);
        return h('section', { class: 'queue', 'data-queue': q.metadata.name },
          h('h2', {}, q.metadata.name),
          h('div', { class: 'pair' }, shareBars(q),
            table(`Queue ${q.metadata.name}`, ['Weight', 'Share (now/deserved)', 'Parent', 'Namespaces', { label: 'Pending', num: true }, { label: 'Admitted', num: true }, { label: 'Fair-share term', num: true }],
              [{ cells: [String(sp.weight ?? 1), st.share || '', sp.parent || '', (sp.namespaces || []).join(', '), st.pending ?? 0, st.admitted ?? 0, { value: String(st.fairShareTerm ?? ''), attrs: { class: 'num term' } }] }])),
          termHistoryOf(q, now),
          names.length
            ? table('Per resource', ['Resource', { label: 'Usage', num: true }, { label: 'Min', num: true }, { label: 'Max', num: true }],
              names.map((n) => ({ cells: [n, (st.usage || {})[n] ?? 0, (sp.min || {})[n] ?? '', (sp.max || {})[n] ?? ''] })))
            : h('p', {}, 'No usage now, and no min or max.'));
      }));
  },
};

function driftPlot(name, d) {
  const samples = d.samples || [];
  const requests = d.sampleRequests || [];
  const top = Math.max(1, d.requested || 0, d.usedMax || 0, ...samples, ...requests);
  const height = 130;
  const left = 90;
  const y = (v) => 10 + (1 - v / top) * (height - 30);
  const step = samples.length > 1 ? (WIDTH - 12) / (samples.length - 1) : 0;
  return s('svg', { width: left + WIDTH + 20, height, role: 'img', 'aria-label': `${name}: ${samples.length} runs' measured peaks against the request ${d.requested ?? 'none'}; the table beside it has the numbers.` },
    s('line', { class: 'grid', x1: left, x2: left, y1: y(top), y2: y(0) }),
    s('line', { class: 'grid', x1: left, x2: left + WIDTH, y1: y(0), y2: y(0) }),
    s('text', { x: 0, y: y(top) + 4 }, String(top)), s('text', { x: 0, y: y(0) + 4 }, '0'),
    s('text', { x: left, y: height - 2 }, `runs, oldest first (${samples.length})`),
    d.requested === undefined ? null : s('line', { class: 'requested', x1: left, x2: left + WIDTH, y1: y(d.requested), y2: y(d.requested) }, s('title', {}, `requested ${d.requested}`)),
    samples.map((v, i) => s('circle', { class: 'usedpoint', cx: left + 6 + i * step, cy: y(v), r: 4, 'data-sample': v }, s('title', {}, `run ${i + 1}: used ${v}${requests[i] !== undefined ? ` of ${requests[i]} requested` : ''}`))));
}

export const driftView = {
  title: () => 'Job types',
  async body() {
    const list = await api(`${BATCH}/batchjobprofiles`);
    const profiles = list.items.sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
    if (!profiles.length) return h('p', {}, 'No job type has finished a run yet: drift is recorded per spec.type as runs end.');
    return h('div', {},
      legend([['used', 'a run\'s measured peak'], ['allocated', 'the request']]),
      profiles.map((p) => {
        const st = p.status || {};
        const res = st.resources || {};
        return h('section', { class: 'profile', 'data-profile': `${p.metadata.namespace}/${p.metadata.name}` },
          h('h2', {}, `${p.metadata.namespace}/${p.metadata.name}`),
          h('p', {}, `${st.runs ?? 0} runs, ${st.overLimitRuns ?? 0} over a limit.`),
          Object.keys(res).sort().map((n) => h('div', { class: 'pair' }, h('div', {}, h('h3', {}, n), driftPlot(n, res[n])),
            table(n, [{ label: 'Requested', num: true }, { label: 'Used p50', num: true }, { label: 'p95', num: true }, { label: 'max', num: true }, { label: 'Waste', num: true }, { label: 'Suggested request', num: true }],
              [{ cells: [String(res[n].requested ?? ''), res[n].usedP50 ?? '', res[n].usedP95 ?? '', res[n].usedMax ?? '', res[n].waste === undefined ? '' : `${Math.round(res[n].waste * 100)}%`, res[n].suggestedRequest ?? ''] }]))));
      }));
  },
};
