import http from 'node:http';

/** A keep-alive HTTP client with one socket per concurrent worker, as a dashboard backend would use. */
export class GraphqlHttpClient {
  private readonly agent: http.Agent;
  private readonly url: URL;

  /** `apiKey` empty: no Authorization header (a server without authentication). */
  constructor(
    baseUrl: string,
    private readonly apiKey: string,
    maxSockets: number,
  ) {
    this.url = new URL('/graphql', baseUrl);
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  /** Resolves true on a 200 answer without `errors`. */
  post(query: string, variables: Record<string, unknown>): Promise<boolean> {
    const body = JSON.stringify({ query, variables });
    return new Promise((resolve, reject) => {
      const req = http.request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            ...(this.apiKey && { authorization: `Apikey ${this.apiKey}` }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            resolve(res.statusCode === 200 && !text.includes('"errors":[{"message"'));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
