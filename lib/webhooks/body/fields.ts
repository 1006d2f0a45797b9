/**
 * Builds flat field objects (form bodies, multipart fields) safely: a repeated name becomes an array, and names
 * such as `__proto__` or `constructor[prototype]` become plain own keys that can reach no prototype.
 */
export type Fields = Record<string, string | string[]>;

export function addField(fields: Fields, name: string, value: string): void {
  if (!Object.hasOwn(fields, name)) {
    setOwn(fields, name, value);
    return;
  }
  const current = fields[name] as string | string[];
  if (Array.isArray(current)) current.push(value);
  else fields[name] = [current, value];
}

/**
 * Sets an own enumerable key of a plain object, whatever its name. Plain assignment, except for `__proto__`:
 * `target['__proto__'] = v` would replace the object's prototype. Assignment is safe for every other name, and
 * much cheaper than defineProperty.
 */
export function setOwn(target: object, name: string, value: unknown): void {
  if (name === '__proto__') defineOwn(target, name, value);
  else (target as Record<string, unknown>)[name] = value;
}

/** Sets an own enumerable key, whatever its name. */
function defineOwn(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}
