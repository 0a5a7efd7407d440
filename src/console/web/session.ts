import { createContext } from 'preact';
import { useContext, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { AuthenticationError, type Client, describeError } from './api.js';

/** What every view shares: the client, the refresh tick, and how to give up a refused key. */
export interface Session {
  readonly client: Client;
  /** Increases every 15 s while refreshing is not paused: views load again when it changes. */
  readonly tick: number;
  /** Sends the user back to the key form with the API's message. */
  readonly refuseKey: (message: string) => void;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in console');
  return session;
}

/**
 * What each question last answered, with the refresh tick it was asked at: going back or forward
 * to a view shows what was just loaded without asking again, until the next refresh.
 */
const answered = new Map<string, { client: Client; tick: number; data: unknown }>();
const ANSWERS_KEPT = 50;

export interface Loaded<T> {
  readonly data: T | undefined;
  /** The last error in words; the last data stays shown beside it. */
  readonly error: string | undefined;
  readonly loading: boolean;
}

/**
 * Loads what a view shows, again whenever `key` changes or the refresh tick moves; an answer to
 * an older question is dropped. A refused key ends the session. The last data stays on screen
 * while the next answer is awaited, so a refresh never blanks the page.
 */
export function useLoad<T>(key: string, load: (client: Client) => Promise<T>): Loaded<T> {
  const { client, tick, refuseKey } = useSession();
  const cached = answered.get(key);
  const fresh = cached && cached.client === client && cached.tick === tick ? cached : undefined;
  const [state, setState] = useState<Loaded<T> & { key?: string }>(() =>
    fresh
      ? { data: fresh.data as T, error: undefined, loading: false, key }
      : { data: undefined, error: undefined, loading: true },
  );
  const latest = useRef(0);
  // `load` is a new closure each render: `key` names its question, `tick` asks it again. Asked
  // as the view is put on the page, before the browser paints it: an effect would wait for the
  // next frame (and, as a page opens, for its first paint) before the request left.
  // biome-ignore lint/correctness/useExhaustiveDependencies: key and tick stand for load's inputs
  useLayoutEffect(() => {
    const id = ++latest.current;
    const kept = answered.get(key);
    if (kept && kept.client === client && kept.tick === tick) {
      setState({ data: kept.data as T, error: undefined, loading: false, key });
      return;
    }
    setState((previous) => ({ ...previous, loading: true }));
    load(client).then(
      (data) => {
        answered.delete(key);
        answered.set(key, { client, tick, data });
        if (answered.size > ANSWERS_KEPT) answered.delete(answered.keys().next().value as string);
        if (id === latest.current) setState({ data, error: undefined, loading: false, key });
      },
      (error: unknown) => {
        if (id !== latest.current) return;
        if (error instanceof AuthenticationError) {
          refuseKey(describeError(error));
          return;
        }
        setState((previous) => ({
          data: previous.key === key ? previous.data : undefined,
          error: describeError(error),
          loading: false,
          key,
        }));
      },
    );
  }, [key, tick, client]);
  return { data: state.key === key ? state.data : undefined, error: state.error, loading: state.loading };
}
