/** Posting to a public form the way a browser does: the page is fetched first for its token. */
export async function formToken(url: string): Promise<string> {
  const html = await (await fetch(url)).text();
  const token = /name="_token" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error(`No form token on ${url}: ${html.slice(0, 300)}`);
  return token;
}

export async function postForm(
  url: string, values: Record<string, string>, options: { token?: string; origin?: string | null; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; html: string; refusal: string | null; submissionId: string | null }> {
  const token = options.token ?? await formToken(url);
  const body = options.body ?? new URLSearchParams({ ...values, _token: token }).toString();
  const origin = options.origin === undefined ? new URL(url).origin : options.origin;
  const response = await fetch(url, {
    method: 'POST', redirect: 'manual', body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin ? { origin } : {}), ...(options.headers ?? {}) },
  });
  return { status: response.status, html: await response.text(), refusal: response.headers.get('x-steward-refusal'), submissionId: response.headers.get('x-steward-submission') };
}
