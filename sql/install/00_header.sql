/* The install script of idgen's current version, sql/idgen--<version>.sql,
 * which a fresh CREATE EXTENSION idgen runs.  The Makefile assembles it
 * from the pieces in sql/install/, in the order of their numbers, and puts
 * in the functions that \ir lines name (sql/udfs/<function>/latest.sql):
 * see docs/development.md, "Where the SQL lives".  The upgrade scripts
 * (sql/updates/) carry only the changes from one version to the next,
 * from sql/idgen--0.1.sql (the oldest install, kept for them) on;
 * test/sql/upgrade.sql checks that the walked chain and this script give
 * the same objects, definition by definition.
 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION idgen" to load this file. \quit
