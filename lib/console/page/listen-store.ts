/**
 * Every workflow's listen as this page knows it, from the stream (always the newest news) and from answers (the
 * listens under way when the page opened, the listen a click started). An answer loses to anything the stream said
 * about the same workflow while it was on its way, so a slow answer never puts an older state back.
 */
import type { ConsoleEvent, ListenSnapshot } from '../protocol.js';

export type ListenChange = 'snapshot' | 'countdown';

type Listener = (workflowId: string, change: ListenChange) => void;

export class ListenStore {
  readonly #snapshots = new Map<string, ListenSnapshot>();
  /** How many stream events each workflow had: an answer applies only when none came since it was asked for. */
  readonly #heard = new Map<string, number>();
  readonly #listeners = new Set<Listener>();

  get(workflowId: string): ListenSnapshot | undefined {
    return this.#snapshots.get(workflowId);
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => { this.#listeners.delete(listener); };
  }

  /** A mark to take before asking the server; hand it to `fromAnswer` with what it answered. */
  mark(): Map<string, number> {
    return new Map(this.#heard);
  }

  event(event: ConsoleEvent): void {
    if (event.type === 'listen') {
      const { workflowId, listen, wait, refused } = event;
      this.#heard.set(workflowId, (this.#heard.get(workflowId) ?? 0) + 1);
      this.#set({ workflowId, listen, wait, refused }, 'snapshot');
    } else if (event.type === 'countdown') {
      const known = this.#snapshots.get(event.workflowId);
      if (known?.listen.state !== 'listening' || known.listen.listenId !== event.listenId) return;
      this.#set({ ...known, listen: { ...known.listen, secondsLeft: event.secondsLeft } }, 'countdown');
    }
  }

  fromAnswer(snapshot: ListenSnapshot, mark: Map<string, number>): void {
    if ((this.#heard.get(snapshot.workflowId) ?? 0) !== (mark.get(snapshot.workflowId) ?? 0)) return;
    this.#set(snapshot, 'snapshot');
  }

  #set(snapshot: ListenSnapshot, change: ListenChange): void {
    this.#snapshots.set(snapshot.workflowId, snapshot);
    for (const listener of this.#listeners) listener(snapshot.workflowId, change);
  }
}
