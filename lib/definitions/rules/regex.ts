/** Compiling author-written regular expressions without running them on anything but the empty string. */

export function compileRegex(source: string): RegExp | string {
  try {
    return new RegExp(source);
  } catch (error) {
    return error instanceof Error ? error.message : 'invalid regular expression';
  }
}

/** Number of capture groups: an alternative that matches the empty string reports every group as a slot. */
export function captureGroups(regex: RegExp): number {
  const probe = new RegExp(`${regex.source}|`, regex.flags.replace(/[gy]/g, ''));
  return (probe.exec('')?.length ?? 1) - 1;
}
