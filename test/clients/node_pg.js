// node_pg.js - idgen and idgen128 through node-postgres (pg 8)
//
// usage: NODE_PATH=<dir>/node_modules PGHOST=... PGPORT=... PGUSER=...
//        PGDATABASE=... node node_pg.js
//
// Run by test/t/052_clients.pl, which installs pg@8 into a temporary
// directory first.  Prints one line per check,
//
//     check <name> ok
//     check <name> FAIL <detail>
//
// and a last line "done"; exits 0 when every check passed, 1 when one
// failed, 2 when something broke on the way.
//
// What it shows:
//   - by default pg hands an unknown type's text to the application as a
//     string: an idgen above 2^53 arrives exactly as its decimal string
//     (where Number() would round it), an idgen128 as its canonical
//     lowercase UUID string;
//   - with the recommended parser, types.setTypeParser(<oid of idgen>,
//     BigInt), an idgen arrives as an exact BigInt; BigInt and string
//     parameters go back in unchanged;
//   - text and binary COPY of both types through pg-copy-streams: out and
//     back in unchanged, the binary fields in int8's and uuid's wire formats.
'use strict';

const pg = require('pg');
const { to: copyTo, from: copyFrom } = require('pg-copy-streams');
const { pipeline } = require('stream/promises');
const { Readable } = require('stream');

let failures = 0;
function check(name, ok, detail) {
  if (ok) {
    console.log(`check ${name} ok`);
  } else {
    failures += 1;
    console.log(`check ${name} FAIL ${detail === undefined ? '' : detail}`);
  }
}

const BIG = '9007199254740993'; // 2^53 + 1: no double can hold it
const MAX = '9223372036854775807'; // the largest idgen
const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// one INSERT ... RETURNING of both types, values the server also renders
// as text so the client's view can be compared with the server's
const insertSql = `
  INSERT INTO node_ids (n, id, id128)
  VALUES (1, $1::idgen, idgen_next128()),
         (2, $2::idgen, $3::idgen128),
         (3, idgen_next(), idgen_next128())
  RETURNING n, id, id128, id::text AS id_text, id128::text AS id128_text`;

async function copyOut(client, sql) {
  const chunks = [];
  const stream = client.query(copyTo(sql));
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function copyIn(client, sql, buf) {
  await pipeline(Readable.from([buf]), client.query(copyFrom(sql)));
}

// the fields of a binary COPY stream (PGCOPY header, then tuples)
function binaryRows(buf) {
  const rows = [];
  let pos = 11 + 4;                                // signature, flags
  pos += 4 + buf.readUInt32BE(pos);                // header extension
  for (;;) {
    const nfields = buf.readInt16BE(pos);
    pos += 2;
    if (nfields === -1) break;
    const fields = [];
    for (let i = 0; i < nfields; i++) {
      const len = buf.readInt32BE(pos);
      pos += 4;
      fields.push(len < 0 ? null : buf.subarray(pos, pos + len));
      pos += Math.max(len, 0);
    }
    rows.push(fields);
  }
  return rows;
}

async function main() {
  const client = new pg.Client();
  await client.connect();

  await client.query('CREATE TEMP TABLE node_ids (n int, id idgen, id128 idgen128)');
  const oids = await client.query(
    "SELECT 'idgen'::regtype::oid::int AS idgen, 'idgen128'::regtype::oid::int AS idgen128");
  const idgenOid = oids.rows[0].idgen;

  // --- the default: an unknown type arrives as its text ----------------------
  const fixed128 = 'ffffffff-ffff-7fff-bfff-ffffffffffff';
  let res = await client.query(insertSql, [BIG, MAX, fixed128]);
  const byN = {};
  for (const row of res.rows) byN[row.n] = row;

  check('default_big_is_string', typeof byN[1].id === 'string' && byN[1].id === BIG,
    `${typeof byN[1].id} ${byN[1].id}`);
  check('default_max_is_string', byN[2].id === MAX, `${byN[2].id}`);
  check('number_would_round', String(Number(BIG)) !== BIG,
    'Number() kept 2^53+1 exact, so the check shows nothing');
  check('default_generated_exact',
    typeof byN[3].id === 'string' && byN[3].id === byN[3].id_text &&
      BigInt(byN[3].id) > 2n ** 53n,
    `${byN[3].id} vs ${byN[3].id_text}`);
  let ok128 = true;
  let detail128 = '';
  for (const row of res.rows) {
    if (typeof row.id128 !== 'string' || row.id128 !== row.id128_text || !UUID7.test(row.id128)) {
      ok128 = false;
      detail128 += `${row.n}: ${row.id128} vs ${row.id128_text}; `;
    }
  }
  check('idgen128_canonical_string', ok128 && byN[2].id128 === fixed128, detail128);
  // any spelling goes in, the canonical one comes out
  res = await client.query('SELECT $1::idgen128::text AS t',
    ['{FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF}']);
  check('idgen128_input_spelling', res.rows[0].t === fixed128, res.rows[0].t);

  // --- the recommended parser: BigInt ---------------------------------------
  pg.types.setTypeParser(idgenOid, BigInt);
  res = await client.query(
    'SELECT n, id, id::text AS id_text, id128, id128::text AS id128_text FROM node_ids ORDER BY n');
  let okBig = res.rows.length === 3;
  let detailBig = `${res.rows.length} rows; `;
  for (const row of res.rows) {
    if (typeof row.id !== 'bigint' || row.id.toString() !== row.id_text) {
      okBig = false;
      detailBig += `${row.n}: ${typeof row.id} ${row.id} vs ${row.id_text}; `;
    }
  }
  check('bigint_parser_exact', okBig, detailBig);
  check('bigint_big', res.rows[0].id === 9007199254740993n, `${res.rows[0].id}`);
  check('bigint_max', res.rows[1].id === 9223372036854775807n, `${res.rows[1].id}`);
  check('bigint_parser_leaves_idgen128', typeof res.rows[0].id128 === 'string' &&
    res.rows[0].id128 === res.rows[0].id128_text, `${res.rows[0].id128}`);

  // a BigInt goes back in as a parameter, exactly
  res = await client.query(
    'INSERT INTO node_ids (n, id, id128) VALUES (4, $1, $2) RETURNING id, id128, id = $3::idgen AS same',
    [9007199254740993n, fixed128, BIG]);
  check('bigint_parameter_back', res.rows[0].same === true && res.rows[0].id === 9007199254740993n,
    `${res.rows[0].id} ${res.rows[0].same}`);
  const gen = (await client.query('SELECT id, id128 FROM node_ids WHERE n = 3')).rows[0];
  res = await client.query('SELECT count(*)::int AS c FROM node_ids WHERE id = $1 AND id128 = $2',
    [gen.id, gen.id128]);
  check('generated_back', res.rows[0].c === 1, `${res.rows[0].c} rows`);

  // an idgen[] still arrives as the array's text; its elements are exact
  res = await client.query('SELECT array_agg(id ORDER BY n)::text AS a FROM node_ids WHERE n IN (1, 2)');
  check('array_text_exact', res.rows[0].a === `{${BIG},${MAX}}`, res.rows[0].a);

  // --- COPY, text and binary, out and back in ------------------------------
  const textOut = (await copyOut(client,
    'COPY (SELECT id, id128 FROM node_ids ORDER BY n) TO STDOUT')).toString();
  const serverText = (await client.query(
    "SELECT string_agg(id::text || E'\\t' || id128::text, E'\\n' ORDER BY n) || E'\\n' AS t FROM node_ids")).rows[0].t;
  check('copy_text_out', textOut === serverText, JSON.stringify(textOut));
  await client.query('CREATE TEMP TABLE node_copy_text (id idgen, id128 idgen128)');
  await copyIn(client, 'COPY node_copy_text FROM STDIN', Buffer.from(textOut));
  res = await client.query(`SELECT count(*)::int AS c FROM node_ids a JOIN node_copy_text b
                            ON a.id = b.id AND a.id128 = b.id128`);
  check('copy_text_in', res.rows[0].c === 4, `${res.rows[0].c} of 4 rows back`);

  const binOut = await copyOut(client,
    'COPY (SELECT id, id128 FROM node_ids ORDER BY n) TO STDOUT (FORMAT binary)');
  const fields = binaryRows(binOut);
  const expected = (await client.query(
    "SELECT id::text AS id, replace(id128::text, '-', '') AS hex FROM node_ids ORDER BY n")).rows;
  let okWire = fields.length === expected.length;
  let detailWire = `${fields.length} rows; `;
  fields.forEach((f, i) => {
    const id = f[0].length === 8 ? f[0].readBigInt64BE(0).toString() : `len ${f[0].length}`;
    const hex = f[1].length === 16 ? f[1].toString('hex') : `len ${f[1].length}`;
    if (!expected[i] || id !== expected[i].id || hex !== expected[i].hex) {
      okWire = false;
      detailWire += `${i}: ${id} ${hex}; `;
    }
  });
  check('copy_binary_wire_formats', okWire, detailWire);
  await client.query('CREATE TEMP TABLE node_copy_bin (id idgen, id128 idgen128)');
  await copyIn(client, 'COPY node_copy_bin FROM STDIN (FORMAT binary)', binOut);
  res = await client.query(`SELECT count(*)::int AS c FROM node_ids a JOIN node_copy_bin b
                            ON a.id = b.id AND a.id128 = b.id128`);
  check('copy_binary_in', res.rows[0].c === 4, `${res.rows[0].c} of 4 rows back`);

  await client.end();
  console.log('done');
  return failures ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.log(`error ${err && err.code ? err.code + ' ' : ''}${err && err.message}`);
    process.exit(2);
  });
