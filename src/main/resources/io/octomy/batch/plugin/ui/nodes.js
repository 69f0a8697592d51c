// Nodes: each BatchNode's modes, readiness and, per resource, capacity, offers, allocated and
// measured usage, as bars with the same numbers in a table beside them.
import { h, s, api, BATCH, table, facts, ago, condition, keys, legend } from './dom.js';

const WIDTH = 420;
const ROW = 34;

function bars(node, names) {
  const st = node.status || {};
  const offer = st.offer || {};
  const height = names.length * ROW + 8;
  const label = `Resources of ${node.metadata.name}: capacity, offer to others, allocated and used, per resource; the table beside it has the numbers.`;
  const svg = s('svg', { width: WIDTH + 170, height, role: 'img', 'aria-label': label, class: 'nodebars' });
  names.forEach((name, i) => {
    const v = (m) => Number((m || {})[name] || 0);
    const cap = v(st.capacity);
    const top = Math.max(cap, v(offer.others), v(offer.own), v(st.allocated), v(st.usage), 1);
    const x = (n) => 168 + (n / top) * WIDTH;
    const y = 4 + i * ROW;
    svg.append(
      s('text', { x: 0, y: y + 17 }, name.length > 24 ? `…${name.slice(-23)}` : name),
      s('rect', { class: 'capacity', x: 168, y, width: x(cap) - 168, height: 24 }, s('title', {}, `${name} capacity ${cap}`)),
      s('rect', { class: 'offer', x: 168, y, width: x(v(offer.others)) - 168, height: 24, 'data-resource': name, 'data-kind': 'offer' }, s('title', {}, `${name} offer to others ${v(offer.others)}`)),
      s('rect', { class: 'allocated', x: 168, y: y + 7, width: x(v(st.allocated)) - 168, height: 10 }, s('title', {}, `${name} allocated ${v(st.allocated)}`)),
    );
    if (st.usage && name in st.usage) {
      svg.append(s('line', { class: 'used', x1: x(v(st.usage)), x2: x(v(st.usage)), y1: y - 2, y2: y + 26 }, s('title', {}, `${name} used ${v(st.usage)}`)));
    }
  });
  return svg;
}

function nodeSection(node, now) {
  const st = node.status || {};
  const spec = node.spec || {};
  const offer = st.offer || {};
  const ready = condition(node, 'Ready');
  const names = keys(st.capacity, offer.others, offer.own, st.allocated, st.usage);
  const num = (m, name) => ({ value: m && name in m ? String(m[name]) : '', attrs: { 'data-resource': name } });
  const cell = (m, name, col) => { const c = num(m, name); c.attrs['data-col'] = col; return c; };
  return h('section', { class: 'node', 'data-node': node.metadata.name, 'aria-labelledby': `node-${node.metadata.name}` },
    h('h2', { id: `node-${node.metadata.name}` }, node.metadata.name),
    facts([
      ['Mode', spec.mode], ['Own mode', spec.ownMode || spec.mode], ['Executor', spec.executor],
      ['Ready', ready ? `${ready.status}${ready.reason ? ` (${ready.reason})` : ''}` : 'unknown'],
      ['Heartbeat', st.heartbeatTime ? ago(st.heartbeatTime, now) : 'never'],
    ]),
    h('div', { class: 'pair' },
      bars(node, names),
      table(`Per resource on ${node.metadata.name}`,
        ['Resource', { label: 'Capacity', num: true }, { label: 'Offer (others)', num: true }, { label: 'Offer (own)', num: true }, { label: 'Allocated', num: true }, { label: 'Used', num: true }],
        names.map((name) => ({ attrs: { 'data-resource': name }, cells: [name, cell(st.capacity, name, 'capacity'), cell(offer.others, name, 'offer-others'), cell(offer.own, name, 'offer-own'), cell(st.allocated, name, 'allocated'), cell(st.usage, name, 'used')] })),
        { class: 'resources' })));
}

export const nodesView = {
  title: () => 'Nodes',
  async body() {
    const list = await api(`${BATCH}/batchnodes`);
    const now = Date.now();
    const nodes = list.items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    return h('div', {},
      legend([['capacity', 'capacity'], ['offer', 'offer to others (its mode)'], ['allocated', 'allocated (requests of admitted jobs)'], ['used', 'measured usage']]),
      nodes.length ? nodes.map((n) => nodeSection(n, now)) : h('p', {}, 'No BatchNodes: start an agent or standalone mode.'));
  },
};
