// Teams: each BatchQueue's share of the pool against the share it deserves, its weight, min and
// max. Job types: each BatchJobProfile's request against what its runs used.
import { h, s, api, BATCH, table, keys, legend } from './dom.js';

const WIDTH = 360;

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
    return h('div', {},
      legend([['share', 'dominant share of the pool now'], ['capacity', 'the whole pool']]),
      h('p', {}, 'The black line is the share each queue deserves among its siblings with work (by weight).'),
      queues.map((q) => {
        const sp = q.spec || {};
        const st = q.status || {};
        const names = keys(st.usage, sp.min, sp.max);
        return h('section', { class: 'queue', 'data-queue': q.metadata.name },
          h('h2', {}, q.metadata.name),
          h('div', { class: 'pair' }, shareBars(q),
            table(`Queue ${q.metadata.name}`, ['Weight', 'Share (now/deserved)', 'Parent', 'Namespaces', { label: 'Pending', num: true }, { label: 'Admitted', num: true }],
              [{ cells: [String(sp.weight ?? 1), st.share || '', sp.parent || '', (sp.namespaces || []).join(', '), st.pending ?? 0, st.admitted ?? 0] }])),
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
