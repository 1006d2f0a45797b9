/**
 * What the library's log lines carry of an error: its name, message and code and its causes, whatever was thrown,
 * so that no line reads `"err":{}`.
 */
import { expect } from 'chai';
import { errorFields, STDERR_LOGGER } from '../../lib/core/logger.js';

/** The lines the default logger writes to stderr while `work` runs. */
function stderrLines(work: () => void): Array<Record<string, unknown>> {
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => { written.push(String(chunk)); return true; }) as typeof process.stderr.write;
  try {
    work();
  } finally {
    process.stderr.write = write;
  }
  return written.map((text) => JSON.parse(text) as Record<string, unknown>);
}

describe('errors in log lines', () => {
  it('gives an error its name, message, code and cause', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const fields = errorFields(new Error('PostgreSQL could not be reached', { cause }));
    expect([fields.name, fields.message]).to.deep.equal(['Error', 'PostgreSQL could not be reached']);
    const inner = fields.cause as Record<string, unknown>;
    expect([inner.name, inner.message, inner.code]).to.deep.equal(['Error', 'connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED']);
  });

  it('gives a failed connect to a name with two addresses (an AggregateError without a message) its code and each address\'s failure', () => {
    const refused = (address: string): Error => Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });
    const aggregate = Object.assign(new AggregateError([refused('::1:5432'), refused('127.0.0.1:5432')], ''), { code: 'ECONNREFUSED' });
    const fields = errorFields(aggregate);
    expect(fields.message).to.equal('ECONNREFUSED; connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432');
    expect((fields.errors as Array<Record<string, unknown>>).map((each) => each.message)).to.deep.equal(['connect ECONNREFUSED ::1:5432', 'connect ECONNREFUSED 127.0.0.1:5432']);
  });

  it('gives something thrown that is no Error its message, code and name, or its text', () => {
    expect(errorFields({ message: 'gone', code: 'E_GONE', name: 'Gone' })).to.deep.equal({ message: 'gone', code: 'E_GONE', name: 'Gone' });
    expect(errorFields({ code: 57 })).to.deep.equal({ message: '{"code":57}', code: 57 });
    expect(errorFields('just text')).to.deep.equal({ message: 'just text' });
  });

  it('writes an Error given as a field of the default logger with its message and code, never as {}', () => {
    const error = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    const [line] = stderrLines(() => STDERR_LOGGER.warn({ err: error }, 'PostgreSQL failed'));
    const err = line?.err as Record<string, unknown>;
    expect([err.name, err.message, err.code]).to.deep.equal(['Error', 'Connection terminated unexpectedly', 'ECONNRESET']);
  });
});
