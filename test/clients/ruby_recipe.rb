# ruby_recipe.rb - clients/ruby/idgen_pg.rb through ruby-pg
#
# usage: ruby ruby_recipe.rb <path of idgen_pg.rb> CONNSTR
#
# Run by test/t/053_orms.pl; the recipe of docs/clients.md.  Prints "check
# <name> ok|FAIL <detail>" lines and "done"; exits 1 when a check failed.
#   - without register an idgen is a String;
#   - after IdgenPG.register(conn), an idgen is an exact Integer in text and
#     binary results (100 consecutive generated IDs above 2**53, not all
#     doubles; 2**53 + 1; 2**63 - 1), an idgen128 its canonical String in
#     both; arrays of both are Arrays; NULL is nil; the basic type map still
#     decodes the other columns;
#   - Integers read go back in as parameters: INSERT, =, <, ORDER BY.
require 'pg'
require ARGV[0]

$failures = 0
def check(name, ok, detail = '')
  if ok
    puts "check #{name} ok"
  else
    $failures += 1
    puts "check #{name} FAIL #{detail}"
  end
  $stdout.flush
end

UUID7 = /\A\h{8}-\h{4}-7\h{3}-[89ab]\h{3}-\h{12}\z/.freeze

conn = PG.connect(ARGV[1])
before = conn.exec('SELECT idgen_next() AS id').getvalue(0, 0)
check('default_is_string', before.is_a?(String), before.class.to_s)

conn.type_map_for_results = PG::BasicTypeMapForResults.new(conn)
oids = IdgenPG.register(conn)
check('register_found_oids', oids.values.all? { |o| o.is_a?(Integer) && o.positive? }, oids.inspect)

conn.exec(<<~SQL)
  CREATE TEMP TABLE ids AS
  SELECT n::int, b AS id, idgen_next128() AS u
  FROM idgen_next_batch(100) WITH ORDINALITY AS x(b, n)
SQL
text = conn.exec('SELECT n, id, id::text AS t, u, u::text AS ut FROM ids ORDER BY n').to_a
{ 'text' => 0, 'binary' => 1 }.each do |mode, format|
  res = conn.exec_params('SELECT n, id, u FROM ids WHERE n > $1 ORDER BY n', [0], format)
  check("#{mode}_result_format", (0..2).all? { |i| res.fformat(i) == format }, res.fformat(1).to_s)
  rows = res.to_a
  rows.each_with_index { |r, i| r['t'] = text[i]['t']; r['ut'] = text[i]['ut'] }
  check("#{mode}_idgen_integer_exact", rows.size == 100 &&
        rows.all? { |r| r['id'].is_a?(Integer) && r['id'].to_s == r['t'] },
        "#{rows[0]['id'].inspect} vs #{rows[0]['t']}")
  check("#{mode}_above_2_53", rows.all? { |r| r['id'] > 2**53 } &&
        rows.any? { |r| r['id'].to_f.to_i != r['id'] }, 'every ID is a double, or not above 2**53')
  check("#{mode}_idgen128_string", rows.all? { |r| r['u'] == r['ut'] && UUID7.match?(r['u']) },
        "#{rows[0]['u'].inspect} vs #{rows[0]['ut']}")
  check("#{mode}_other_columns_decoded", rows.all? { |r| r['n'].is_a?(Integer) }, rows[0]['n'].class.to_s)
  f = conn.exec_params(<<~SQL, ['9007199254740993'], format).to_a[0]
    SELECT $1::idgen AS big, '9223372036854775807'::idgen AS max,
           'ffffffff-ffff-7fff-bfff-ffffffffffff'::idgen128 AS u, NULL::idgen AS n
  SQL
  check("#{mode}_fixed_exact", f['big'] == 2**53 + 1 && f['max'] == 2**63 - 1 &&
        f['u'] == 'ffffffff-ffff-7fff-bfff-ffffffffffff' && f['n'].nil?, f.inspect)
end

arr = conn.exec('SELECT array_agg(id ORDER BY n) AS a, array_agg(u ORDER BY n) AS au FROM ids WHERE n <= 3')[0]
check('arrays', arr['a'].is_a?(Array) && arr['a'] == text[0, 3].map { |r| r['id'] } &&
      arr['a'].all?(Integer) && arr['au'] == text[0, 3].map { |r| r['ut'] }, arr.inspect)

conn.exec('CREATE TEMP TABLE copy (id idgen, u idgen128)')
text[0, 10].each { |r| conn.exec_params('INSERT INTO copy VALUES ($1, $2)', [r['id'], r['u']]) }
eq = conn.exec_params('SELECT count(*) FROM ids WHERE id = $1 AND u = $2', [text[5]['id'], text[5]['u']])
gt = conn.exec_params('SELECT id FROM copy WHERE id > $1 ORDER BY id DESC', [text[6]['id']]).column_values(0)
check('parameters_back', eq.getvalue(0, 0) == 1 && gt == text[7, 3].map { |r| r['id'] }.reverse,
      "#{eq.getvalue(0, 0)} #{gt.inspect}")
ins = conn.exec_params('INSERT INTO copy VALUES ($1, idgen_next128()) RETURNING id, id::text AS t', [2**53 + 1])[0]
check('insert_returning_exact', ins['id'] == 9_007_199_254_740_993 && ins['t'] == '9007199254740993', ins.inspect)

conn.close
puts 'done'
exit($failures.zero? ? 0 : 1)
