# idgen_pg.rb - idgen and idgen128 for ruby-pg (pg 1.4)
#
#   require 'pg'
#   require_relative 'idgen_pg'
#
#   conn = PG.connect(...)
#   IdgenPG.register(conn)
#
# After register(conn), results of conn hold an idgen as an Integer (exact:
# Ruby integers have no 2**53 limit) and an idgen128 as its canonical
# lowercase UUID String, their arrays as Arrays of them, in text and binary
# results (exec_params(sql, params, 1)).  The type map that was set for the
# results before (PG::BasicTypeMapForResults, say) still decodes every
# other type.  Parameters need nothing: an Integer or a String goes in as
# text the server reads as the column's type.
#
# The type OIDs differ per database: register looks them up, in the schema
# the extension was created in, and raises when it is not installed.
require 'pg'

module IdgenPG
  TYPES_SQL = <<~SQL
    SELECT t.typname, t.oid, t.typarray
    FROM pg_catalog.pg_extension AS e
    JOIN pg_catalog.pg_type AS t ON t.typnamespace = e.extnamespace
    WHERE e.extname = 'idgen' AND t.typname IN ('idgen', 'idgen128')
  SQL

  # the binary format of idgen128 is uuid's: 16 bytes
  class Idgen128BinaryDecoder < PG::SimpleDecoder
    def decode(bytes, _tuple = nil, _field = nil)
      h = bytes.unpack1('H*')
      "#{h[0, 8]}-#{h[8, 4]}-#{h[12, 4]}-#{h[16, 4]}-#{h[20, 12]}"
    end
  end

  def self.register(conn)
    found = {}
    conn.exec(TYPES_SQL).each_row do |name, oid, array_oid|
      found[name] = [Integer(oid), Integer(array_oid)]
    end
    raise PG::Error, 'the extension idgen is not installed in this database' if found.size != 2

    tm = PG::TypeMapByOid.new
    idgen_oid, idgen_array = found.fetch('idgen')
    u_oid, u_array = found.fetch('idgen128')
    idgen_text = PG::TextDecoder::Integer.new(oid: idgen_oid, name: 'idgen')
    u_text = PG::TextDecoder::String.new(oid: u_oid, name: 'idgen128')
    tm.add_coder(idgen_text)
    tm.add_coder(u_text)
    # the binary format of idgen is int8's: 8 bytes big-endian
    tm.add_coder(PG::BinaryDecoder::Integer.new(oid: idgen_oid, name: 'idgen', format: 1))
    tm.add_coder(Idgen128BinaryDecoder.new(oid: u_oid, name: 'idgen128', format: 1))
    tm.add_coder(PG::TextDecoder::Array.new(oid: idgen_array, name: '_idgen', elements_type: idgen_text))
    tm.add_coder(PG::TextDecoder::Array.new(oid: u_array, name: '_idgen128', elements_type: u_text))
    tm.default_type_map = conn.type_map_for_results
    conn.type_map_for_results = tm
    { 'idgen' => idgen_oid, 'idgen128' => u_oid }
  end
end
