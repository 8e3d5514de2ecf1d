/**
 * What a mirror schema consists of, as comparable text: every column (type, nullability, default),
 * constraint, index, view, function, trigger and comment, with the schema's own name taken out so
 * that two schemas built different ways compare equal when they are the same.
 */
import { sql, type Kysely } from 'kysely';

export interface SchemaShape {
  columns: string[];
  constraints: string[];
  indexes: string[];
  views: string[];
  functions: string[];
  triggers: string[];
  comments: string[];
}

export async function schemaShape(
  db: Kysely<any>,
  schema: string,
  except: readonly string[] = [],
): Promise<SchemaShape> {
  const strip = (text: string) => text.split(`${schema}.`).join('').split(`"${schema}".`).join('');
  const lines = async (query: ReturnType<typeof sql<{ line: string }>>) =>
    (await query.execute(db)).rows.map((row) => strip(row.line)).sort();
  const skip = sql.val([...except]);
  return {
    columns: await lines(sql<{ line: string }>`
      -- the column's place among the table's columns, so that a reordering shows
      select c.relname || ' ' || row_number() over (partition by c.relname order by a.attnum) || ' ' || a.attname
             || ' ' || format_type(a.atttypid, a.atttypmod)
             || case when a.attnotnull then ' not null' else '' end
             || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '') as line
        from pg_attribute a
        join pg_class c on c.oid = a.attrelid
        join pg_namespace n on n.oid = c.relnamespace
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
       where n.nspname = ${schema} and c.relkind in ('r', 'v') and a.attnum > 0 and not a.attisdropped
         and c.relname <> all(${skip}::text[])`),
    constraints: await lines(sql<{ line: string }>`
      select cl.relname || ' ' || co.conname || ' ' || pg_get_constraintdef(co.oid) as line
        from pg_constraint co join pg_class cl on cl.oid = co.conrelid join pg_namespace n on n.oid = co.connamespace
       where n.nspname = ${schema}`),
    indexes: await lines(sql<{ line: string }>`
      select indexdef as line from pg_indexes where schemaname = ${schema}`),
    views: await lines(sql<{ line: string }>`
      select viewname || ': ' || definition as line from pg_views
       where schemaname = ${schema} and viewname <> all(${skip}::text[])`),
    functions: await lines(sql<{ line: string }>`
      select pg_get_functiondef(p.oid) as line
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = ${schema}`),
    triggers: await lines(sql<{ line: string }>`
      select pg_get_triggerdef(t.oid) as line
        from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = ${schema} and not t.tgisinternal`),
    comments: await lines(sql<{ line: string }>`
      select coalesce(c.relname, p.proname) || coalesce('.' || a.attname, '') || ': ' || d.description as line
        from pg_description d
        left join pg_class c on d.classoid = 'pg_class'::regclass and c.oid = d.objoid
        left join pg_attribute a on a.attrelid = c.oid and a.attnum = d.objsubid and d.objsubid > 0
        left join pg_proc p on d.classoid = 'pg_proc'::regclass and p.oid = d.objoid
        left join pg_namespace n on n.oid = coalesce(c.relnamespace, p.pronamespace)
       where n.nspname = ${schema} and coalesce(c.relname, '') <> all(${skip}::text[])`),
  };
}
