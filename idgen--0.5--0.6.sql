/* idgen--0.5--0.6.sql: changes since 0.5 (sql/idgen.sql is the whole schema) */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.6'" to load this file. \quit
