// idgen-pg.js - idgen and idgen128 for node-postgres (pg 8)
//
//   const { register } = require('./idgen-pg');
//   const client = new pg.Client();
//   await client.connect();
//   await register(client);
//
// After register(client), that client's results hold an idgen as a BigInt
// (exact: a number would round above 2^53) and an idgen128 as its canonical
// lowercase UUID string, their arrays as arrays of them.  Parameters need
// nothing: a BigInt, a number or a string goes in as text the server reads
// as the column's type.  Results are text: pg 8 decodes every field of a
// row as UTF-8, so binary results (binary: true) would mangle the 8 and 16
// bytes of the binary formats; binary COPY (pg-copy-streams) is fine.
//
// The type OIDs differ per database: register looks them up, in the schema
// the extension was created in, and throws when it is not installed.  The
// parsers are the client's own (client.setTypeParser); pg.types.setTypeParser
// would set them for every client, of every database.
'use strict';

const pg = require('pg');

const TYPES_SQL = `
  SELECT t.typname, t.oid::int AS oid, t.typarray::int AS array_oid
  FROM pg_catalog.pg_extension AS e
  JOIN pg_catalog.pg_type AS t ON t.typnamespace = e.extnamespace
  WHERE e.extname = 'idgen' AND t.typname IN ('idgen', 'idgen128')`;

// the text forms: decimal digits, and the canonical UUID spelling
const parsers = {
  idgen: (s) => BigInt(s),
  idgen128: (s) => s,
};

async function register(client) {
  const { rows } = await client.query(TYPES_SQL);
  if (rows.length !== 2) {
    throw new Error('the extension idgen is not installed in this database');
  }
  for (const { typname, oid, array_oid: arrayOid } of rows) {
    const parse = parsers[typname];
    client.setTypeParser(oid, 'text', parse);
    // arrays: '{1,2,NULL}'; the element parser is not given the NULLs
    client.setTypeParser(arrayOid, 'text',
      (s) => pg.types.arrayParser.create(s, (e) => (e === null ? null : parse(e))).parse());
  }
  return Object.fromEntries(rows.map((r) => [r.typname, r.oid]));
}

module.exports = { register };
