// node_recipe.js - clients/node/idgen-pg.js through node-postgres (pg 8)
//
// usage: NODE_PATH=<dir>/node_modules PGHOST=... PGPORT=... PGUSER=...
//        PGDATABASE=... node node_recipe.js <path of idgen-pg.js>
//
// Run by test/t/053_orms.pl; the recipe of docs/clients.md.  Prints "check
// <name> ok|FAIL <detail>" lines and "done"; exits 1 when a check failed.
//   - after register(client), an idgen is an exact BigInt (100
//     consecutive generated IDs above 2^53, not all doubles; 2^53 + 1;
//     2^63 - 1), an idgen128 its canonical string; arrays of both are
//     arrays of them; NULL is null;
//   - another client keeps pg's defaults (the parsers are per client);
//   - BigInts read go back in as parameters: INSERT, =, <, ORDER BY.
'use strict';

const pg = require('pg');
const { register } = require(process.argv[2]);

let failures = 0;
function check(name, ok, detail) {
  if (ok) {
    console.log(`check ${name} ok`);
  } else {
    failures += 1;
    console.log(`check ${name} FAIL ${detail === undefined ? '' : detail}`);
  }
}

const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function main() {
  const client = new pg.Client();
  await client.connect();
  const oids = await register(client);
  check('register_found_oids', Number.isInteger(oids.idgen) && Number.isInteger(oids.idgen128),
    JSON.stringify(oids));

  // 100 consecutive IDs, with the server's text to compare
  await client.query(`CREATE TEMP TABLE ids AS
    SELECT n, b AS id, idgen_next128() AS u
    FROM idgen_next_batch(100) WITH ORDINALITY AS x(b, n)`);
  const text = await client.query('SELECT id, id::text AS t, u, u::text AS ut FROM ids ORDER BY n');
  const rows = text.rows;
  check('idgen_bigint_exact', rows.length === 100 &&
    rows.every((r) => typeof r.id === 'bigint' && r.id.toString() === r.t),
    `${typeof rows[0].id} ${rows[0].id} vs ${rows[0].t}`);
  check('above_2_53', rows.every((r) => r.id > 2n ** 53n) &&
    rows.some((r) => BigInt(Number(r.id)) !== r.id), 'every ID is a double, or not above 2^53');
  check('idgen128_string', rows.every((r) => r.u === r.ut && UUID7.test(r.u)),
    `${rows[0].u} vs ${rows[0].ut}`);
  const fixed = await client.query(
    `SELECT $1::idgen AS big, '9223372036854775807'::idgen AS max,
            'ffffffff-ffff-7fff-bfff-ffffffffffff'::idgen128 AS u, NULL::idgen AS n`,
    ['9007199254740993']);
  const f = fixed.rows[0];
  check('fixed_exact', f.big === 9007199254740993n && f.max === 9223372036854775807n &&
    f.u === 'ffffffff-ffff-7fff-bfff-ffffffffffff' && f.n === null,
    `${f.big} ${f.max} ${f.u} ${f.n}`);

  const arr = await client.query(
    'SELECT array_agg(id ORDER BY n) AS a, array_agg(u ORDER BY n) AS au FROM ids WHERE n <= 3');
  const expect = text.rows.slice(0, 3);
  check('arrays', Array.isArray(arr.rows[0].a) &&
    arr.rows[0].a.every((v, i) => typeof v === 'bigint' && v.toString() === expect[i].t) &&
    arr.rows[0].au.every((v, i) => v === expect[i].ut), JSON.stringify(arr.rows[0].au));

  // parameters: the BigInts read go back in
  await client.query('CREATE TEMP TABLE copy (id idgen, u idgen128)');
  for (const r of text.rows.slice(0, 10)) {
    await client.query('INSERT INTO copy VALUES ($1, $2)', [r.id, r.u]);
  }
  const eq = await client.query('SELECT count(*)::int AS c FROM ids WHERE id = $1 AND u = $2',
    [text.rows[5].id, text.rows[5].u]);
  const gt = await client.query('SELECT id FROM copy WHERE id > $1 ORDER BY id DESC',
    [text.rows[6].id]);
  check('parameters_back', eq.rows[0].c === 1 && gt.rows.length === 3 &&
    gt.rows.map((r) => r.id.toString()).join() === text.rows.slice(7, 10).map((r) => r.t).reverse().join(),
    `${eq.rows[0].c} ${gt.rows.map((r) => r.id).join()}`);
  const ins = await client.query(
    'INSERT INTO copy VALUES ($1, idgen_next128()) RETURNING id, id::text AS t', [2n ** 53n + 1n]);
  check('insert_returning_exact', ins.rows[0].id === 9007199254740993n &&
    ins.rows[0].t === '9007199254740993', `${ins.rows[0].id}`);

  // another client of the same process: pg's own defaults, a string
  const other = new pg.Client();
  await other.connect();
  const o = await other.query('SELECT idgen_next() AS id');
  check('other_client_untouched', typeof o.rows[0].id === 'string', typeof o.rows[0].id);
  await other.end();

  await client.end();
  console.log('done');
  process.exit(failures === 0 ? 0 : 1);
}

main().catch((e) => {
  console.log(`error: ${e.stack}`);
  process.exit(2);
});
