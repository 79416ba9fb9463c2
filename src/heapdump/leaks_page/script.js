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
var depth = new Int32Array(n), count = new Float64Array(n);
for (var i = 0; i < n; i++) {
  label[i] = raw[5 * i]; retained[i] = raw[5 * i + 1]; shallow[i] = raw[5 * i + 2];
  depth[i] = raw[5 * i + 3]; count[i] = raw[5 * i + 4];
}
var shape = icShape(depth), parent = shape.parent;
var H = D.heap;
var tree = $('tree'), statusEl = $('status');
var zoomed = 0;
var suspectNode = {};
(D.suspectNodes || []).forEach(function (k) { suspectNode[k] = 1; });

function name(k) {
  if (label[k] === -2) return 'all reachable objects';
  if (label[k] === -1) return '(' + count[k] + ' smaller object' + (count[k] === 1 ? '' : 's') + ')';
  return labels[label[k]];
}
function colour(k) {
  if (label[k] === -2) return 'hsl(0,0%,82%)';
  var h = icHash(name(k));
  return 'hsl(' + (20 + h % 40) + ',' + (55 + (h >>> 6) % 30) + '%,' + (62 + (h >>> 12) % 14) + '%)';
}
function pct(v) { return (H ? 100 * v / H : 0).toFixed(2) + '%'; }
function describe(k) {
  if (label[k] === -1)
    return name(k) + ' of ' + name(parent[k]) + ': ' + retained[k] + ' bytes retained, ' + pct(retained[k]);
  return name(k) + (ids[k] ? '  ' + ids[k] : '') + '  shallow ' + shallow[k] + ' bytes, retained ' +
         retained[k] + ' bytes, ' + pct(retained[k]);
}
function addNode(frag, k, x, w, cls) {
  var e = icBox(shape, k, x, w, 'node' + cls + (label[k] === -1 ? ' rest' : '') +
                (suspectNode[k] ? ' suspect-node' : ''), ROW);
  e.style.backgroundColor = colour(k);
  e.textContent = name(k);
  frag.appendChild(e);
}
/* the zoomed node spans the width; its ancestors above it, full width */
function render() {
  tree.textContent = '';
  if (!n || !retained[0]) { tree.textContent = 'No reachable objects.'; return; }
  icDraw(tree, shape, retained, zoomed, MIN_W, ROW, addNode);
}
function zoom(k) {
  zoomed = k;
  render();
  statusEl.textContent = describe(k);
}
function applyHash() {
  icEachHashPart(function (k, v) {
    if (k === 'show') {  /* the v-th "show in the tree" button */
      var bs = document.querySelectorAll('button[data-node]'), b = bs[+v - 1];
      if (b) b.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, view: window }));
      else statusEl.textContent = 'no button ' + v;
      return;
    }
    if (k === 'click') icClickNamed(tree, 'node', v, statusEl, 'node');
  });
}
icListen(tree, 'node', statusEl, zoom, describe);
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
