(function () {
'use strict';
/* the dominator tree as an icicle: D.nodes holds, in preorder, 5 numbers per
   node: label index (-1: "(n smaller objects)" of a parent, -2: the root),
   retained bytes, shallow bytes, depth, count (objects an aggregate stands
   for); D.ids the objects' ids. Click a node to zoom into it, the reset
   button or Esc to zoom out. Test hooks: "#click=NAME" clicks the widest
   drawn node whose label is NAME (else the first containing it), "#show=K"
   the K-th "show in the tree" button of the suspects. */
var ROW = 16, MIN_W = 0.002;
var labels = D.labels, raw = D.nodes, ids = D.ids, n = raw.length / 5;
var label = new Int32Array(n), retained = new Float64Array(n), shallow = new Float64Array(n);
var depth = new Int32Array(n), count = new Float64Array(n), parent = new Int32Array(n), end = new Int32Array(n);
var nextX = new Float64Array(n);
var open = [], i;
for (i = 0; i < n; i++) {
  label[i] = raw[5 * i]; retained[i] = raw[5 * i + 1]; shallow[i] = raw[5 * i + 2];
  depth[i] = raw[5 * i + 3]; count[i] = raw[5 * i + 4];
  var d = depth[i];
  while (open.length > d) end[open.pop()] = i;
  parent[i] = d > 0 ? open[d - 1] : -1;
  open.push(i);
}
while (open.length) end[open.pop()] = n;
var H = D.heap;
function $(id) { return document.getElementById(id); }
var tree = $('tree'), statusEl = $('status');
var zoomed = 0;
var suspectNode = {};
(D.suspectNodes || []).forEach(function (k) { suspectNode[k] = 1; });

function name(k) {
  if (label[k] === -2) return 'all reachable objects';
  if (label[k] === -1) return '(' + count[k] + ' smaller object' + (count[k] === 1 ? '' : 's') + ')';
  return labels[label[k]];
}
function hash(s) {
  var h = 5381;
  for (var j = 0; j < s.length; j++) h = (h * 33 + s.charCodeAt(j)) | 0;
  return h >>> 0;
}
function colour(k) {
  if (label[k] === -2) return 'hsl(0,0%,82%)';
  var h = hash(name(k));
  return 'hsl(' + (20 + h % 40) + ',' + (55 + (h >>> 6) % 30) + '%,' + (62 + (h >>> 12) % 14) + '%)';
}
function pct(v) { return (H ? 100 * v / H : 0).toFixed(2) + '%'; }
function describe(k) {
  if (label[k] === -1)
    return name(k) + ' of ' + name(parent[k]) + ': ' + retained[k] + ' bytes retained, ' + pct(retained[k]);
  return name(k) + (ids[k] ? '  ' + ids[k] : '') + '  shallow ' + shallow[k] + ' bytes, retained ' +
         retained[k] + ' bytes, ' + pct(retained[k]);
}
function nodeOf(ev) {
  var e = ev.target;
  while (e && e !== tree && !(e.classList && e.classList.contains('node'))) e = e.parentNode;
  return e && e !== tree ? e : null;
}
function addNode(frag, k, x, w, cls) {
  var e = document.createElement('div');
  e.className = 'node' + cls + (label[k] === -1 ? ' rest' : '') + (suspectNode[k] ? ' suspect-node' : '');
  e.setAttribute('data-i', k);
  e.setAttribute('data-x', (100 * x).toFixed(3));
  e.setAttribute('data-w', (100 * w).toFixed(3));
  e.style.left = (100 * x) + '%';
  e.style.width = (100 * w) + '%';
  e.style.top = (depth[k] * ROW) + 'px';
  e.style.backgroundColor = colour(k);
  e.textContent = name(k);
  frag.appendChild(e);
}
/* the zoomed node spans the width; its ancestors above it, full width */
function render() {
  tree.textContent = '';
  if (!n || !retained[0]) { tree.textContent = 'No reachable objects.'; return; }
  var frag = document.createDocumentFragment(), path = [], maxDepth = 0, a, z = zoomed, zt = retained[z];
  for (a = parent[z]; a >= 0; a = parent[a]) path.push(a);
  for (a = path.length - 1; a >= 0; a--) addNode(frag, path[a], 0, 1, ' ancestor');
  nextX[z] = 0;
  for (var j = z; j < end[z];) {
    var w = zt ? retained[j] / zt : 0, x = 0;
    if (j !== z) { x = nextX[parent[j]]; nextX[parent[j]] = x + w; }
    if (w < MIN_W && j !== z) { j = end[j]; continue; }
    nextX[j] = x;
    addNode(frag, j, x, w, j === z ? ' zoomed' : '');
    if (depth[j] > maxDepth) maxDepth = depth[j];
    j++;
  }
  tree.style.height = ((maxDepth + 1) * ROW) + 'px';
  tree.appendChild(frag);
  $('reset').disabled = z === 0;
}
function zoom(k) {
  zoomed = k;
  render();
  statusEl.textContent = describe(k);
}
function applyHash() {
  var h = location.hash.replace(/^#/, '');
  if (!h) return;
  h.split('&').forEach(function (part) {
    var eq = part.indexOf('=');
    if (eq < 0) return;
    var k = part.slice(0, eq), v = part.slice(eq + 1);
    try { v = decodeURIComponent(v); } catch (err) { /* keep it raw */ }
    if (k === 'show') {  /* the v-th "show in the tree" button */
      var bs = document.querySelectorAll('button[data-node]'), b = bs[+v - 1];
      if (b) b.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, view: window }));
      else statusEl.textContent = 'no button ' + v;
      return;
    }
    if (k !== 'click') return;
    var fs = tree.querySelectorAll('.node'), hit = null, j;
    var wider = function (f) { return !hit || +f.getAttribute('data-w') > +hit.getAttribute('data-w'); };
    for (j = 0; j < fs.length; j++) if (fs[j].textContent === v && wider(fs[j])) hit = fs[j];
    for (j = 0; j < fs.length && !hit; j++) if (fs[j].textContent.indexOf(v) >= 0) hit = fs[j];
    if (hit) hit.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, view: window }));
    else statusEl.textContent = 'no node named ' + v;
  });
}
tree.addEventListener('click', function (ev) {
  var f = nodeOf(ev);
  if (f) zoom(+f.getAttribute('data-i'));
});
tree.addEventListener('mouseover', function (ev) {
  var f = nodeOf(ev);
  if (!f) return;
  var text = describe(+f.getAttribute('data-i'));
  statusEl.textContent = text;
  f.title = text;
});
$('reset').addEventListener('click', function () { zoom(0); });
document.addEventListener('keydown', function (ev) { if (ev.key === 'Escape') zoom(0); });
document.addEventListener('click', function (ev) {
  var b = ev.target;
  if (b && b.getAttribute && b.getAttribute('data-node') !== null) {
    zoom(+b.getAttribute('data-node'));
    tree.scrollIntoView({ block: 'nearest' });
  }
});
render();
applyHash();
window.addEventListener('hashchange', applyHash);
})();
