/* idgen--0.7--0.8.sql: changes since 0.7 (sql/idgen.sql is the whole schema) */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.8'" to load this file. \quit

