// pprof_sum.js — an independent reader of our pprof files (npm's pprof-format,
// installed by the test): prints each sample type, the total of the first,
// and that total by the leaf sample's function ("leaf NAME N"), for t6103.
// usage: node pprof_sum.js NODE_MODULES_DIR FILE.pb.gz
'use strict';
const { Profile } = require(process.argv[2] + '/pprof-format');
const zlib = require('zlib');
const fs = require('fs');
const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[3])));
const st = p.stringTable.strings || p.stringTable;
if (st[0] !== '') throw new Error('string table[0] is not empty');
for (const t of p.sampleType) console.log('type ' + st[Number(t.type)] + ' ' + st[Number(t.unit)]);
const fn = new Map(p.function.map(f => [Number(f.id), st[Number(f.name)]]));
const loc = new Map(p.location.map(l => [Number(l.id), l]));
const byLeaf = new Map();
let total = 0;
for (const s of p.sample) {
  const v = Number(s.value[0]);
  total += v;
  const l = loc.get(Number(s.locationId[0]));
  if (!l) throw new Error('a sample names location ' + s.locationId[0] + ', which is not there');
  const name = fn.get(Number(l.line[0].functionId));
  byLeaf.set(name, (byLeaf.get(name) || 0) + v);
}
console.log('total ' + total);
for (const [name, v] of byLeaf) console.log('leaf ' + name + ' ' + v);
