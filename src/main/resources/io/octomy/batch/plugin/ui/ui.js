// The router and the poll: each view is a URL (#/timeline?ns=..., #/nodes, #/job/NS/NAME,
// #/teams, #/drift); its body is rebuilt every few seconds from fresh reads, without a reload.
import { h } from './dom.js';
import { nodesView } from './nodes.js';
import { jobView } from './job.js';
import { timelineView } from './timeline.js';
import { teamsView, driftView } from './teams.js';

const VIEWS = { timeline: timelineView, nodes: nodesView, job: jobView, teams: teamsView, drift: driftView };
let config = { namespace: 'default', pollSeconds: 2 };
let generation = 0;
let busy = false;

function route() {
  const hash = location.hash.replace(/^#\/?/, '') || 'timeline';
  const [path, query = ''] = hash.split('?');
  const parts = path.split('/').map(decodeURIComponent);
  const view = VIEWS[parts[0]] ? parts[0] : 'timeline';
  return { view, parts: parts.slice(1), query: new URLSearchParams(query), config };
}

async function refresh(full) {
  if (busy && !full) return;
  busy = true;
  const mine = full ? ++generation : generation;
  const r = route();
  const view = VIEWS[r.view];
  try {
    if (full) {
      Object.values(VIEWS).forEach((v) => v !== view && v.leave && v.leave());
      document.querySelectorAll('nav a').forEach((a) => (a.getAttribute('href') === `#/${r.view}`
        ? a.setAttribute('aria-current', 'page') : a.removeAttribute('aria-current')));
      document.getElementById('controls').replaceChildren(view.controls ? view.controls(r) : '');
      document.title = `${view.title(r)} · octomy-batch`;
    }
    const body = await view.body(r);
    if (mine !== generation) return;
    const main = document.getElementById('view');
    // an unchanged view is left as it is, so hover, focus and selection survive the poll
    // a view that keeps its own elements between polls (the timeline) returns the same one
    if (body !== main.children[1] && (full || !main.children[1] || !main.children[1].isEqualNode(body))) {
      main.replaceChildren(h('h1', {}, view.title(r)), body);
    }
    main.dataset.view = r.view;
    main.dataset.loaded = String(Date.now());
    document.getElementById('live').textContent = `read at ${new Date().toLocaleTimeString()}; every ${config.pollSeconds}s`;
  } catch (e) {
    if (mine !== generation) return;
    document.getElementById('view').replaceChildren(h('h1', {}, view.title(r)), h('p', { class: 'error', role: 'alert' }, e.message));
  } finally {
    busy = false;
  }
}

async function start() {
  try {
    const r = await fetch('/config.json', { cache: 'no-store' });
    config = await r.json();
  } catch (e) { /* the defaults serve */ }
  window.addEventListener('hashchange', () => { refresh(true); document.getElementById('view').focus(); });
  await refresh(true);
  setInterval(() => refresh(false), config.pollSeconds * 1000);
}

start();
