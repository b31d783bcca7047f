/* idgen--0.4--0.5.sql: layout epochs, statistics */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.5'" to load this file. \quit

