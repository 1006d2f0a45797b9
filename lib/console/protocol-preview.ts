/**
 * What the console's Preview section and its server say to each other: a node description's lint findings and the
 * examples it offers. Types only, re-exported by protocol.ts.
 */

export interface FindingDto {
  path: string;
  code: string;
  severity: 'error' | 'warning';
  message: string;
}

export interface LintAnswer {
  valid: boolean;
  findings: FindingDto[];
}

export interface ExampleDto {
  id: string;
  title: string;
  description: unknown;
}
