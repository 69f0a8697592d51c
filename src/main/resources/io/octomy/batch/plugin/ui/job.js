// Job: what it declared (request, limit, class), where it stands (phase, reason and its sentence),
// why it waits (every blocker with its remedy), its conditions, runs and events.
import { h, api, optional, notesOf, BATCH, VISIBILITY, enc, table, facts, at, keys } from './dom.js';

async function why(ns, name) {
  try {
    return await api(`${VISIBILITY}/namespaces/${enc(ns)}/pendingjobs/${enc(name)}`);
  } catch (e) {
    return { error: e.message };
  }
}

async function events(ns, name, notes) {
  const list = await optional(`/api/v1/namespaces/${enc(ns)}/events?fieldSelector=${enc(`involvedObject.name=${name}`)}`, { items: [] }, notes);
  return list.items.filter((e) => e.involvedObject && e.involvedObject.kind === 'BatchJob')
    .sort((a, b) => String(a.lastTimestamp || a.eventTime || '').localeCompare(String(b.lastTimestamp || b.eventTime || '')));
}

// Jobs whose output the person asked to see: it stays shown, and follows, across the polls.
const shown = new Set();

function output(ns, name) {
  const box = h('div', {});
  const button = h('button', { type: 'button' }, 'Show the last 50 lines of its output');
  const load = async () => {
    shown.add(`${ns}/${name}`);
    try {
      const text = await api(`${VISIBILITY}/namespaces/${enc(ns)}/joblogs/${enc(name)}?tailLines=50`, 'text/plain');
      box.replaceChildren(h('pre', { 'aria-label': 'output' }, text || '(no output)'));
    } catch (e) {
      box.replaceChildren(h('p', { class: 'error', role: 'alert' }, e.message));
    }
  };
  button.addEventListener('click', load);
  box.append(button);
  if (shown.has(`${ns}/${name}`)) load();
  return box;
}

export const jobView = {
  title: (r) => `Job ${r.parts[1] || ''}`,
  async body(r) {
    const [ns, name] = r.parts;
    if (!ns || !name) return h('p', {}, 'Name a job: #/job/NAMESPACE/NAME, or pick one on the timeline.');
    const job = await api(`${BATCH}/namespaces/${enc(ns)}/batchjobs/${enc(name)}`);
    const spec = job.spec || {};
    const st = job.status || {};
    const req = (spec.resources || {}).requests || {};
    const lim = (spec.resources || {}).limits || {};
    const used = st.usage || {};
    const over = new Set(st.overLimit || []);
    const notes = [];
    const [pending, evs] = await Promise.all([st.phase === 'Queued' ? why(ns, name) : null, events(ns, name, notes)]);
    const parts = [
      facts([['Namespace', ns], ['Phase', h('span', { 'data-field': 'phase' }, st.phase || 'not decided yet')],
        ['Reason', h('span', { 'data-field': 'reason' }, st.reason || '')], ['Class', h('span', { 'data-field': 'class' }, st.serviceClass || '')],
        ['Node', st.node], ['Priority', st.effectivePriority], ['Type', spec.type], ['Group', spec.group],
        ['After', (spec.after || []).join(', ')], ['Locks', (spec.locks || []).join(', ')],
        ['Queued', at(st.queuedAt)], ['Started', at(st.startedAt)], ['Finished', at(st.finishedAt)],
        ['Exit code', st.exitCode], ['Failed runs', st.failedRuns]]),
      st.message ? h('p', { class: 'message', 'data-field': 'message' }, st.message) : null,
      table('Declared and used, per resource', ['Resource', { label: 'Request', num: true }, { label: 'Limit', num: true }, { label: 'Used (peak)', num: true }, 'Over its limit'],
        keys(req, lim, used).map((k) => ({ cells: [k, req[k] ?? '', lim[k] ?? '', used[k] ?? '', over.has(k) ? 'yes' : ''] })), { class: 'declared' }),
    ];
    if (pending && pending.error) parts.push(h('p', { class: 'error' }, pending.error));
    if (pending && !pending.error) {
      parts.push(h('h2', {}, 'Why it waits'),
        facts([['Position', pending.position], ['Expected start', pending.expectedStart ? `${at(pending.expectedStart)} (in ${pending.expectedIn}) on ${pending.expectedNode}` : 'unknown'], ['Basis', pending.startBasis]]),
        table('Blockers, each with its remedy', ['Reason', 'Message', 'Remedy'], (pending.blockers || []).map((b) => ({ cells: [b.reason, b.message, b.remedy] })), { class: 'blockers' }));
    }
    parts.push(table('Conditions', ['Type', 'Status', 'Reason', 'Message', 'Since'], (st.conditions || []).map((c) => ({ cells: [c.type, c.status, c.reason, c.message, at(c.lastTransitionTime)] })), { class: 'conditions' }));
    if ((st.runs || []).length) {
      parts.push(table('Earlier runs', ['Run', 'Node', { label: 'Exit code', num: true }, 'Reason', 'Started', 'Finished'], st.runs.map((x) => ({ cells: [String(x.run), x.node, x.exitCode ?? '', x.reason, at(x.startedAt), at(x.finishedAt)] })), { class: 'runs' }));
    }
    parts.push(table('Events', ['Type', 'Reason', 'Message', { label: 'Count', num: true }, 'Last seen'], evs.map((e) => ({ cells: [e.type, e.reason, e.message, e.count ?? '', at(e.lastTimestamp || e.eventTime)] })), { class: 'events' }));
    if (st.admission && st.admission.executor === 'Process') parts.push(h('h2', {}, 'Output'), output(ns, name));
    parts.push(notesOf(notes));
    return h('div', { 'data-job': `${ns}/${name}` }, parts);
  },
};
