'use strict';
/* The icicle both of jvmprof's pages draw: the flame graph (src/format/flame_page/, boxes of
   class "frame" in #flame) and the leak report's dominator tree (src/heapdump/leaks_page/,
   boxes of class "node" in #tree). The Makefile puts this file before each page's own script,
   in the same script element; a page keeps its data and its colours, and gives these functions its
   tree as { depth, parent, end, nextX } (icShape) with the weight that sizes each box. */

function $(id) { return document.getElementById(id); }

/* a name's hash, for a colour that stays the same from one page to the next */
function icHash(s) {
  var h = 5381;
  for (var j = 0; j < s.length; j++) h = (h * 33 + s.charCodeAt(j)) | 0;
  return h >>> 0;
}

/* the tree of nodes given in preorder by their depths: each one's parent (-1: the root) and
   subtree end (one past its last descendant), found with an explicit stack */
function icShape(depth) {
  var n = depth.length, parent = new Int32Array(n), end = new Int32Array(n), open = [];
  for (var i = 0; i < n; i++) {
    var d = depth[i];
    while (open.length > d) end[open.pop()] = i;
    parent[i] = d > 0 ? open[d - 1] : -1;
    open.push(i);
  }
  while (open.length) end[open.pop()] = n;
  return { depth: depth, parent: parent, end: end, nextX: new Float64Array(n) };
}

/* a node's box, placed: x and w are shares of the width; data-i, data-x and data-w (percent)
   are what the tests read */
function icBox(t, i, x, w, cls, rowPx) {
  var e = document.createElement('div');
  e.className = cls;
  e.setAttribute('data-i', i);
  e.setAttribute('data-x', (100 * x).toFixed(3));
  e.setAttribute('data-w', (100 * w).toFixed(3));
  e.style.left = (100 * x) + '%';
  e.style.width = (100 * w) + '%';
  e.style.top = (t.depth[i] * rowPx) + 'px';
  return e;
}

/* draws into box the zoomed node z across the width, its ancestors above it (full width), its
   subtree below it, each node as wide as its share of weight[z]; a node narrower than minW is
   left out with its subtree. add(frag, i, x, w, cls) appends node i's box; cls is ' ancestor',
   ' zoomed' or ''. The page's #reset button is disabled when z is the root. */
function icDraw(box, t, weight, z, minW, rowPx, add) {
  var parent = t.parent, end = t.end, depth = t.depth, nextX = t.nextX;
  var frag = document.createDocumentFragment(), path = [], maxDepth = 0, a, zt = weight[z];
  for (a = parent[z]; a >= 0; a = parent[a]) path.push(a);
  for (a = path.length - 1; a >= 0; a--) add(frag, path[a], 0, 1, ' ancestor');
  nextX[z] = 0;
  for (var j = z; j < end[z];) {
    var w = zt ? weight[j] / zt : 0, x = 0;
    if (j !== z) { x = nextX[parent[j]]; nextX[parent[j]] = x + w; }
    if (w < minW && j !== z) { j = end[j]; continue; }
    nextX[j] = x;
    add(frag, j, x, w, j === z ? ' zoomed' : '');
    if (depth[j] > maxDepth) maxDepth = depth[j];
    j++;
  }
  box.style.height = ((maxDepth + 1) * rowPx) + 'px';
  box.appendChild(frag);
  $('reset').disabled = z === 0;
}

/* clicking a box (of class cls, in box) zooms into its node, the #reset button back to the root;
   hovering a box says what it is in statusEl and in its title */
function icListen(box, cls, statusEl, zoom, describe) {
  var boxOf = function (ev) {
    var e = ev.target;
    while (e && e !== box && !(e.classList && e.classList.contains(cls))) e = e.parentNode;
    return e && e !== box ? e : null;
  };
  box.addEventListener('click', function (ev) {
    var f = boxOf(ev);
    if (f) zoom(+f.getAttribute('data-i'));
  });
  box.addEventListener('mouseover', function (ev) {
    var f = boxOf(ev);
    if (!f) return;
    var text = describe(+f.getAttribute('data-i'));
    statusEl.textContent = text;
    f.title = text;
  });
  $('reset').addEventListener('click', function () { zoom(0); });
}

/* the page's test hooks: calls hook(key, value) for each KEY=VALUE of the URL's #fragment,
   joined by &, the value URL-decoded */
function icEachHashPart(hook) {
  var h = location.hash.replace(/^#/, '');
  if (!h) return;
  h.split('&').forEach(function (part) {
    var eq = part.indexOf('=');
    if (eq < 0) return;
    var k = part.slice(0, eq), v = part.slice(eq + 1);
    try { v = decodeURIComponent(v); } catch (err) { /* keep it raw */ }
    hook(k, v);
  });
}

/* the #click=NAME hook: clicks the widest drawn box (of class cls, in box) named NAME, else the
   first whose name contains it; else says "no WHAT named NAME" in statusEl */
function icClickNamed(box, cls, v, statusEl, what) {
  var fs = box.querySelectorAll('.' + cls), hit = null, j;
  var wider = function (f) { return !hit || +f.getAttribute('data-w') > +hit.getAttribute('data-w'); };
  for (j = 0; j < fs.length; j++) if (fs[j].textContent === v && wider(fs[j])) hit = fs[j];
  for (j = 0; j < fs.length && !hit; j++) if (fs[j].textContent.indexOf(v) >= 0) hit = fs[j];
  if (hit) hit.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, view: window }));
  else statusEl.textContent = 'no ' + what + ' named ' + v;
}
