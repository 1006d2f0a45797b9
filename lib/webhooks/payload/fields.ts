/**
 * Builds flat field objects (form bodies, multipart fields) safely: a repeated name becomes an array, and names
 * such as `__proto__` or `constructor[prototype]` become plain own keys that can reach no prototype.
 */
export type Fields = Record<string, string | string[]>;

// Plain assignment, except for `__proto__`: `fields['__proto__'] = v` would replace the object's prototype.
export function addField(fields: Fields, name: string, value: string): void {
  if (!Object.hasOwn(fields, name)) {
    // Assignment is safe for every name but __proto__, and much cheaper than defineProperty.
    if (name === '__proto__') defineOwn(fields, name, value);
    else fields[name] = value;
    return;
  }
  const current = fields[name] as string | string[];
  if (Array.isArray(current)) current.push(value);
  else fields[name] = [current, value];
}

/** Sets an own enumerable key, whatever its name. */
export function defineOwn(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}
