/**
 * A 422 never repeats what the caller sent, whatever the validator library: real zod (4 and its v3 API), valibot,
 * arktype and effect validators are given inputs that carry a secret, and every message they produce goes through
 * withoutCallerValues. Each test first checks that some library did print the secret, so that it sees a leak.
 */
import { expect } from 'chai';
import { type } from 'arktype';
import { Schema } from 'effect';
import * as v from 'valibot';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import type { StandardSchema, StandardSchemaIssue } from '../../../lib/index.js';
import { withoutCallerValues } from '../../../lib/webhooks/validate/caller-text.js';

const SECRET = 'sk_live_51Hsecret';
const CARD = 4111111111111111;
const SECRET_KEY = 'secretKeyName';
const MESSY_EMAIL = '  Sk_Live_Secret@Nowhere ';

/** Errors: all, and unknown keys refused, as a strict object of the other libraries would. */
function effect<A, I>(schema: Schema.Schema<A, I, never>): StandardSchema {
  return Schema.standardSchemaV1(schema, { errors: 'all', onExcessProperty: 'error' });
}

interface Messages {
  /** As the library wrote them. */
  readonly written: string[];
  /** As a 422 would carry them. */
  readonly answered: string[];
}

async function messagesOf(cases: ReadonlyArray<readonly [StandardSchema, unknown]>): Promise<Messages> {
  const written: string[] = [];
  const answered: string[] = [];
  for (const [schema, input] of cases) {
    const result = await schema['~standard'].validate(input);
    expect(result.issues, `${schema['~standard'].vendor} refuses ${JSON.stringify(input)}`).to.be.an('array').that.is.not.empty;
    for (const issue of result.issues as readonly StandardSchemaIssue[]) {
      written.push(issue.message);
      answered.push(withoutCallerValues(issue.message, issue, input));
    }
  }
  return { written, answered };
}

function expectCutOut({ written, answered }: Messages, sent: RegExp): void {
  expect(written.join('\n'), 'some library printed what was sent').to.match(sent);
  for (const message of answered) expect(message).not.to.match(sent);
}

describe('a 422 never repeats what the caller sent, whatever the validator library', () => {
  it('leaves out a string sent where something else was wanted', async () => {
    const messages = await messagesOf([
      [z.object({ plan: z.enum(['free', 'pro']), qty: z.number() }), { plan: SECRET, qty: SECRET }],
      [z3.object({ plan: z3.enum(['free', 'pro']), qty: z3.number() }), { plan: SECRET, qty: SECRET }],
      [v.object({ plan: v.picklist(['free', 'pro']), qty: v.number() }), { plan: SECRET, qty: SECRET }],
      [type({ plan: "'free' | 'pro'", qty: 'number' }), { plan: SECRET, qty: SECRET }],
      [effect(Schema.Struct({ plan: Schema.Literal('free', 'pro'), qty: Schema.Number })), { plan: SECRET, qty: SECRET }],
    ]);
    expectCutOut(messages, /sk_live_51Hsecret/i);
    expect(messages.answered.join('\n')).to.include('(the value sent)');
  });

  it('leaves out a number sent, yet keeps the bound the schema states', async () => {
    const messages = await messagesOf([
      [z.object({ amount: z.number().max(100), card: z.string() }), { amount: CARD, card: CARD }],
      [v.object({ amount: v.pipe(v.number(), v.maxValue(100)), card: v.string() }), { amount: CARD, card: CARD }],
      [type({ amount: 'number <= 100', card: 'string' }), { amount: CARD, card: CARD }],
      [effect(Schema.Struct({ amount: Schema.Number.pipe(Schema.lessThanOrEqualTo(100)), card: Schema.String })), { amount: CARD, card: CARD }],
    ]);
    expectCutOut(messages, /4111111111111111/);
    const bounds = messages.answered.filter((message) => /100/.test(message));
    expect(bounds, 'every library names its bound of 100').to.have.length(4);
  });

  it('leaves out a number sent as query text that the schema coerced', async () => {
    const messages = await messagesOf([
      [v.object({ page: v.pipe(v.string(), v.transform(Number), v.maxValue(100)) }), { page: String(CARD) }],
      [effect(Schema.Struct({ page: Schema.NumberFromString.pipe(Schema.lessThanOrEqualTo(100)) })), { page: String(CARD) }],
    ]);
    expectCutOut(messages, /4111111111111111/);
    for (const message of messages.answered) expect(message).to.include('100');
  });

  it('leaves out a boolean sent where a string was wanted', async () => {
    const messages = await messagesOf([
      [z.object({ name: z.string() }), { name: true }],
      [v.object({ name: v.string() }), { name: true }],
      [type({ name: 'string' }), { name: true }],
      [effect(Schema.Struct({ name: Schema.String })), { name: true }],
    ]);
    expectCutOut(messages, /\btrue\b/);
  });

  it('leaves out a string the schema trimmed and lower-cased before refusing it, keeping the bound of 5', async () => {
    const messages = await messagesOf([
      [z.object({ email: z.string().trim().toLowerCase().email().max(5) }), { email: MESSY_EMAIL }],
      [v.object({ email: v.pipe(v.string(), v.trim(), v.toLowerCase(), v.email(), v.maxLength(5), v.regex(/^a/)) }), { email: MESSY_EMAIL }],
      [type({ email: type('string').pipe((text) => text.trim().toLowerCase()).to('string.email & string <= 5') }), { email: MESSY_EMAIL }],
      [type({ email: type('string').pipe((text) => text.trim().toLowerCase()).to(/^a/) }), { email: MESSY_EMAIL }],
      [effect(Schema.Struct({ email: Schema.compose(Schema.Trim, Schema.Lowercase).pipe(Schema.pattern(/^a/), Schema.maxLength(5)) })), { email: MESSY_EMAIL }],
    ]);
    expectCutOut(messages, /sk_live_secret|nowhere/i);
    const lengthBounds = messages.answered.filter((message) => /\b5\b/.test(message));
    expect(lengthBounds.length, 'the length bound survives where printed').to.be.greaterThanOrEqual(3);
  });

  it('leaves out the names of keys a strict object does not know', async () => {
    const body = { name: 'Ada', [SECRET_KEY]: SECRET };
    const messages = await messagesOf([
      [z.strictObject({ name: z.string() }), body],
      [z3.object({ name: z3.string() }).strict(), body],
      [v.strictObject({ name: v.string() }), body],
      [type({ '+': 'reject', name: 'string' }), body],
      [effect(Schema.Struct({ name: Schema.String })), body],
    ]);
    expectCutOut(messages, /secretKeyName/i);
  });

  it('leaves out a bad value inside a record', async () => {
    const body = { limits: { daily: 5, monthly: SECRET } };
    const messages = await messagesOf([
      [z.object({ limits: z.record(z.string(), z.number()) }), body],
      [z3.object({ limits: z3.record(z3.number()) }), body],
      [v.object({ limits: v.record(v.string(), v.number()) }), body],
      [type({ limits: 'Record<string, number>' }), body],
      [effect(Schema.Struct({ limits: Schema.Record({ key: Schema.String, value: Schema.Number }) })), body],
    ]);
    expectCutOut(messages, /sk_live_51Hsecret/i);
  });

  it('leaves out a whole object printed where a string was wanted', async () => {
    const messages = await messagesOf([
      [effect(Schema.Struct({ note: Schema.String })), { note: { token: SECRET, card: CARD, nested: [{ on: true }] } }],
    ]);
    expectCutOut(messages, /sk_live_51Hsecret|4111111111111111|token|\btrue\b/i);
  });

  it('cuts a number only as a whole, never out of a bound such as >=1.5 or 10', async () => {
    const messages = await messagesOf([
      [v.object({ qty: v.pipe(v.number(), v.minValue(1.5)) }), { qty: 1 }],
      [v.object({ qty: v.pipe(v.number(), v.minValue(10)) }), { qty: 1 }],
    ]);
    expect(messages.written).to.deep.equal(['Invalid value: Expected >=1.5 but received 1', 'Invalid value: Expected >=10 but received 1']);
    expect(messages.answered).to.deep.equal([
      'Invalid value: Expected >=1.5 but received (the value sent)',
      'Invalid value: Expected >=10 but received (the value sent)',
    ]);
  });

  it('keeps a message whole when the value sent is short and not in it, and never cuts a short value out of a word', async () => {
    const messages = await messagesOf([
      [z.object({ qty: z.number().min(1.5) }), { qty: 1 }],
      [z.object({ qty: z.number() }), { qty: 'in' }],
      [type({ qty: 'number' }), { qty: 'a' }],
      [type({ plan: "'free' | 'pro'" }), { plan: 'fre' }],
    ]);
    expect(messages.answered).to.deep.equal([
      'Too small: expected number to be >=1.5',
      'Invalid input: expected number, received string',
      'qty must be a number (was a string)',
      'plan must be "free" or "pro" (was (the value sent))',
    ]);
  });

  it('answers a fixed message instead of throwing on an input or issue it cannot read', () => {
    const message = `Expected number, received "${SECRET}"`;
    const throwingIssue = { message, path: ['x'], get input(): unknown { throw new Error('no'); } };
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error('no'); }, get: () => { throw new Error('no'); } });
    expect(withoutCallerValues(message, throwingIssue, { x: SECRET })).to.equal('is not valid');
    expect(withoutCallerValues(message, { message, path: ['x'] }, hostile)).to.equal('is not valid');
    expect(withoutCallerValues(message, { message }, new Proxy({ x: SECRET }, { ownKeys: () => { throw new Error('no'); } })))
      .to.equal('is not valid');
  });

  it('still cuts the value out of a cyclic or very large body', () => {
    const cyclic: Record<string, unknown> = { token: SECRET };
    cyclic.self = cyclic;
    const large = Object.fromEntries(Array.from({ length: 50_000 }, (_, index) => [`k${index}`, index]));
    const message = `Unrecognized key: "${SECRET}"`;
    expect(withoutCallerValues(message, { message }, cyclic)).to.equal('Unrecognized key: (the value sent)');
    expect(withoutCallerValues(message, { message }, { [SECRET]: 1, ...large })).to.equal('Unrecognized key: (the value sent)');
  });
});

describe('a 422 message keeps what the schema says and cuts exactly what the caller sent', () => {
  const cut = (message: string, issue: Record<string, unknown>, input?: unknown): string =>
    withoutCallerValues(message, { message, ...issue } as StandardSchemaIssue, input);

  it('cuts a message that is nothing but the value sent', () => {
    expect(cut(SECRET, { path: ['token'] }, { token: SECRET })).to.equal('(the value sent)');
  });

  it('leaves a message alone when a library reports that an empty text was received', () => {
    expect(cut('Invalid length: Expected >=1 but received 0', { received: '' })).to.equal('Invalid length: Expected >=1 but received 0');
  });

  it('cuts the whole of a value that begins with a shorter value sent beside it, leaving no fragment', () => {
    const input = { a: 'secret', b: 'secret-abcd-1234' };
    expect(cut('Invalid token: received secret-abcd-1234', { path: [] }, input)).to.equal('Invalid token: received (the value sent)');
    expect(cut('Invalid token: received secret-abcd-1234', { path: [], keys: ['secret', 'secret-abcd-1234'] }))
      .to.equal('Invalid token: received (the value sent)');
  });

  it('cuts the unknown key names an issue lists, even when the body is not at hand', () => {
    expect(cut(`Unrecognized key: "${SECRET_KEY}"`, { path: [], keys: [SECRET_KEY] })).to.equal('Unrecognized key: (the value sent)');
  });

  it('cuts an unknown key zod names, whatever else the call sent', async () => {
    const body = { name: 'Ada', [SECRET_KEY]: 1 };
    const result = await z.strictObject({ name: z.string() })['~standard'].validate(body);
    const [issue] = result.issues ?? [];
    expect(issue?.message).to.include(SECRET_KEY);
    expect(withoutCallerValues(issue?.message ?? '', issue as StandardSchemaIssue, undefined)).to.equal('Unrecognized key: (the value sent)');
  });

  it('cuts the value a library printed as what it received, even without the value itself', () => {
    expect(cut(`Invalid type: Expected number but received "${SECRET}"`, { received: `"${SECRET}"` }))
      .to.equal('Invalid type: Expected number but received (the value sent)');
    expect(cut('Expected "free" but received my secret plan', { received: 'my secret plan' }))
      .to.equal('Expected "free" but received (the value sent)');
  });

  it('keeps the name of the type received, which says nothing of the value', async () => {
    const messages = await messagesOf([[z3.object({ qty: z3.number() }), { qty: 'abc' }]]);
    expect(messages.answered).to.deep.equal(['Expected number, received string']);
    expect(cut('Expected number, received string', { received: 'string' })).to.equal('Expected number, received string');
  });

  it('keeps the literal the schema wants when the value received is a digit of it', async () => {
    const messages = await messagesOf([[z3.object({ qty: z3.literal(10) }), { qty: 1 }]]);
    expect(messages.answered).to.deep.equal(['Invalid literal value, expected 10']);
  });

  it('cuts a long number received only as a whole, never out of a longer bound', async () => {
    const messages = await messagesOf([
      [v.object({ qty: v.pipe(v.number(), v.minValue(10000)) }), { qty: 1000 }],
      [v.object({ qty: v.pipe(v.number(), v.maxValue(-10000)) }), { qty: -1000 }],
    ]);
    expect(messages.answered).to.deep.equal([
      'Invalid value: Expected >=10000 but received (the value sent)',
      'Invalid value: Expected <=-10000 but received (the value sent)',
    ]);
    expect(cut('Expected >=10000 but received 1000', { received: '1000' })).to.equal('Expected >=10000 but received (the value sent)');
  });

  it('cuts the first keys of a huge object sent where a string was wanted', () => {
    const note: Record<string, unknown> = { [SECRET_KEY]: 1 };
    for (let index = 0; index < 100_000; index++) note[`k${index}`] = index;
    expect(cut(`Expected string, actual {"${SECRET_KEY}":1,…}`, { path: ['note'] }, { note })).to.equal('Expected string, actual {(the value sent):1,…}');
  });

  it('cuts a value four levels inside the object sent where a string was wanted', () => {
    const message = `Expected string, actual an object holding "${SECRET}"`;
    expect(cut(message, { path: ['note'] }, { note: { a: { b: { c: { d: SECRET } } } } }))
      .to.equal('Expected string, actual an object holding (the value sent)');
  });

  it('looks only at the first 200 texts of a large value, so a key far down cannot rewrite the schema\'s words', () => {
    const many = [...Array.from({ length: 199 }, (_, index) => `value-${index}`), { first: 1, expected: 2 }];
    expect(cut('Expected string', { path: ['list'] }, { list: many })).to.equal('Expected string');
    expect(cut('Expected string, got value-0', { path: ['list'] }, { list: many })).to.equal('Expected string, got (the value sent)');
  });

  it('cuts a bigint as it is printed, with or without its n, and keeps the bigint bound', async () => {
    const input = { n: 123456789123456789n };
    const written: string[] = [];
    const answered: string[] = [];
    for (const schema of [
      effect(Schema.Struct({ n: Schema.String })),
      effect(Schema.Struct({ n: Schema.BigIntFromSelf.pipe(Schema.lessThanOrEqualToBigInt(10n)) })),
      v.object({ n: v.string() }),
    ]) {
      const result = await schema['~standard'].validate(input);
      for (const issue of result.issues ?? []) {
        written.push(issue.message);
        answered.push(withoutCallerValues(issue.message, issue, input));
      }
    }
    expectCutOut({ written, answered }, /123456789123456789/);
    expect(answered).to.deep.equal([
      'Expected string, actual (the value sent)',
      'Expected a bigint less than or equal to 10n, actual (the value sent)',
      'Invalid type: Expected string but received (the value sent)',
    ]);
  });

  it('cuts a query value such as "0042" that a library printed as the number 42', async () => {
    const messages = await messagesOf([
      [effect(Schema.Struct({ page: Schema.NumberFromString.pipe(Schema.lessThanOrEqualTo(10)) })), { page: '0042' }],
    ]);
    expect(messages.written).to.deep.equal(['Expected a number less than or equal to 10, actual 42']);
    expect(messages.answered).to.deep.equal(['Expected a number less than or equal to 10, actual (the value sent)']);
  });

  it('cuts a four-letter value printed bare', () => {
    expect(cut('plan must be free or pro; got abcd', { path: ['plan'] }, { plan: 'abcd' })).to.equal('plan must be free or pro; got (the value sent)');
  });

  it('does not take a blank or non-numeric value sent for a number the message states', () => {
    expect(cut('must be more than 0 characters', { path: ['q'] }, { q: '  ' })).to.equal('must be more than 0 characters');
    expect(cut('Expected a number, got NaN', { path: ['page'] }, { page: 'abc' })).to.equal('Expected a number, got NaN');
  });

  it('cuts a short value sent that a library single-quoted', async () => {
    const messages = await messagesOf([[z3.object({ plan: z3.enum(['free', 'pro']) }), { plan: 'ab' }]]);
    expect(messages.written).to.deep.equal(["Invalid enum value. Expected 'free' | 'pro', received 'ab'"]);
    expect(messages.answered).to.deep.equal(["Invalid enum value. Expected 'free' | 'pro', received (the value sent)"]);
    expect(cut("plan must be 'free', not 'ab'", { path: ['plan'] }, { plan: 'ab' })).to.equal("plan must be 'free', not (the value sent)");
  });

  it('cuts a value holding regular-expression characters literally, without cutting what merely resembles it', () => {
    expect(cut('Invalid: "a+b(c)" is not one of a+b, abc', { path: ['expr'] }, { expr: 'a+b(c)' }))
      .to.equal('Invalid: (the value sent) is not one of a+b, abc');
    expect(cut('Invalid: [x.y]* is not xzy', { path: ['expr'] }, { expr: '[x.y]*' })).to.equal('Invalid: (the value sent) is not xzy');
  });
});
