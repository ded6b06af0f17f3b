import { describe, expect, it } from 'vitest';
import { restateWaitSender, type RestateWaitSenderOptions } from '../../src/durable-restate/index';
import { caught, failure, fields } from '../assertions';

/** A fetch that records each request and answers with `status` and `body`. */
function recordingFetch(status: number, body: string): { fetch: typeof fetch; requests: unknown[] } {
  const requests: unknown[] = [];
  const fetch = ((url: string, init: RequestInit) => {
    requests.push({ url, method: init.method, headers: init.headers, body: init.body });
    return Promise.resolve(new Response(body, { status }));
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

describe('restateWaitSender', () => {
  describe('send', () => {
    it("posts the wait's name and value to the answer handler of the workflow run keyed by the run", async () => {
      const { fetch, requests } = recordingFetch(200, '{"accepted":true}');
      const sender = restateWaitSender({
        ingress: 'http://127.0.0.1:8080/',
        workflow: 'support',
        headers: { authorization: 'Bearer k' },
        fetch,
      });
      await sender.send('ticket 7', 'executeTool:t1:approve', { approved: true });
      expect(requests).toEqual([
        {
          url: 'http://127.0.0.1:8080/support/ticket%207/answer',
          method: 'POST',
          headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
          body: '{"name":"executeTool:t1:approve","value":{"approved":true}}',
        },
      ]);
    });

    it("rejects with the ingress's status and answer when it refuses", async () => {
      const { fetch } = recordingFetch(404, 'no such workflow');
      const error = await failure(restateWaitSender({ ingress: 'http://127.0.0.1:8080', workflow: 'support', fetch }).send('t', 'w', 1));
      expect(String(error)).toBe('Error: Restate ingress answered 404 to the answer of wait "w" of run "t": no such workflow');
    });
  });

  describe('given malformed options', () => {
    it.each([
      [{ workflow: 'support' }, 'ingress'],
      [{ ingress: 'http://127.0.0.1:8080', workflow: '' }, 'workflow'],
    ])('refuses %j, naming %s', (options, key) => {
      const error = caught(() => restateWaitSender(options as unknown as RestateWaitSenderOptions));
      expect([
        fields(error),
        error.message.startsWith(`[ERR_INVALID_OPTIONS] restateWaitSender(): options.${key} must be a non-empty string, got `),
      ]).toEqual([{ code: 'ERR_INVALID_OPTIONS', stage: undefined, phase: 'register', handler: 'restateWaitSender' }, true]);
    });
  });
});
