/**
 * Query strings, parsed the way Express' "extended" parser does (qs): `a[b]=1` nests, repeated keys become arrays.
 * qs refuses prototype keys by default; its depth, array and parameter limits bound the work per request.
 */
import qs from 'qs';

export function parseQuery(search: string): Record<string, unknown> {
  if (search === '') return {};
  return qs.parse(search, { depth: 5, parameterLimit: 1000, arrayLimit: 20, allowPrototypes: false });
}
