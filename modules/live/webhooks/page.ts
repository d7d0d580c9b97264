import { escapeHtml } from '../../../core/html';
/**
 * The viewer page (GET /live/watch/<org>/<stream>): the video's place, the chat, the open poll and
 * a private prayer request form. Everything viewers wrote is put on the page as text
 * (textContent), never as HTML; the page's one script runs under a nonce CSP.
 */


export function watchPage(input: { title: string; apiBase: string; nonce: string; broadcastId: string | null; provider: string }): string {
  const config = JSON.stringify({ apiBase: input.apiBase }).replace(/</g, '\\u003c');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#f6f6f4;color:#1d1d1b}main{max-width:64rem;margin:0 auto;padding:1rem;display:grid;gap:1rem;grid-template-columns:2fr 1fr}
@media(max-width:50rem){main{grid-template-columns:1fr}}section{background:#fff;border-radius:.5rem;padding:1rem}h1{font-size:1.4rem;margin:.2rem 0}
#player{aspect-ratio:16/9;background:#222;color:#eee;display:flex;align-items:center;justify-content:center;border-radius:.5rem;text-align:center}
#messages{list-style:none;padding:0;margin:0;max-height:24rem;overflow:auto}#messages li{padding:.3rem 0;border-bottom:1px solid #eee}#messages b{margin-right:.4rem}
input,textarea,button{font:inherit;padding:.4rem;margin:.2rem 0;box-sizing:border-box;width:100%}button{cursor:pointer}.note{color:#666;font-size:.85rem}
</style></head><body><main>
<section><h1 id="title">${escapeHtml(input.title)}</h1><p id="status" class="note"></p><p id="member" class="note" hidden>You are signed in as a member: you are counted once a day by name.</p>
<div id="player" data-provider="${escapeHtml(input.provider)}" data-broadcast="${escapeHtml(input.broadcastId ?? '')}">The stream will appear here when it is live.</div>
<div id="poll" hidden><h2 id="poll-question"></h2><form id="poll-form"><div id="poll-options"></div><button type="submit">Vote</button></form><p id="poll-note" class="note"></p><ul id="poll-results"></ul></div>
</section>
<section><h2>Chat</h2><ul id="messages" aria-live="polite"></ul>
<form id="chat-form"><input id="chat-name" name="name" maxlength="60" placeholder="Your name" required><textarea id="chat-body" name="body" maxlength="500" rows="2" placeholder="Say hello" required></textarea><button type="submit">Send</button></form>
<p id="chat-note" class="note"></p>
<h2>Ask for prayer</h2><form id="prayer-form"><input id="prayer-name" name="name" maxlength="100" placeholder="Your name (optional)">
<input id="prayer-contact" name="contact" maxlength="200" placeholder="Email or phone, if you would like someone to get in touch (optional)">
<textarea id="prayer-body" name="body" maxlength="2000" rows="3" placeholder="How can we pray for you?" required></textarea>
<label><input type="checkbox" id="prayer-private" style="width:auto"> Only for the pastoral team</label><button type="submit">Send to the hosts</button></form>
<p id="prayer-note" class="note">Sent privately to the hosts, never shown in the chat.</p></section>
</main>
<script nonce="${input.nonce}">
(() => {
  const config = ${config};
  const $ = (id) => document.getElementById(id);
  const key = 'steward-live-viewer';
  let token = localStorage.getItem(key);
  if (!token || !/^[A-Za-z0-9_-]{16,64}$/.test(token)) {
    const bytes = crypto.getRandomValues(new Uint8Array(24));
    token = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    localStorage.setItem(key, token);
  }
  // A member sent here by the portal carries a pass in the fragment: kept for this tab only, and taken out of the address bar.
  const passKey = 'steward-live-member';
  const fromPortal = /^#member=([A-Za-z0-9._-]{1,300})$/.exec(location.hash);
  if (fromPortal) { sessionStorage.setItem(passKey, fromPortal[1]); history.replaceState(null, '', location.pathname + location.search); }
  const memberPass = sessionStorage.getItem(passKey) || undefined;
  const post = async (path, body) => {
    const response = await fetch(config.apiBase + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ viewerToken: token, memberPass, ...body }) });
    const answer = await response.json().catch(() => ({ ok: false, error: { message: 'Something went wrong' } }));
    if (!answer.ok) throw new Error((answer.error && answer.error.message) || 'Something went wrong');
    return answer;
  };
  let session = null;
  let votedPoll = null;
  const shown = new Set();
  function render(state) {
    $('status').textContent = state.status === 'live' ? 'Live now' : state.status === 'complete' ? 'This stream has ended' : 'Starts ' + new Date(state.startsAt).toLocaleString();
    const list = $('messages');
    const ids = new Set(state.messages.map((m) => m.id));
    for (const li of Array.from(list.children)) if (!ids.has(li.dataset.id)) { li.remove(); shown.delete(li.dataset.id); }
    for (const m of state.messages) {
      if (shown.has(m.id)) continue;
      shown.add(m.id);
      const li = document.createElement('li');
      li.dataset.id = m.id;
      const name = document.createElement('b');
      name.textContent = m.displayName;
      const body = document.createElement('span');
      body.className = 'body';
      body.textContent = m.body;
      li.append(name, body);
      list.append(li);
    }
    $('chat-form').hidden = !state.chatOpen;
    const poll = state.poll;
    $('poll').hidden = !poll;
    if (!poll) return;
    if ($('poll').dataset.id !== poll.id) {
      $('poll').dataset.id = poll.id;
      $('poll-question').textContent = poll.question;
      const options = $('poll-options');
      options.replaceChildren(...poll.options.map((o, i) => {
        const label = document.createElement('label');
        const input = document.createElement('input');
        input.type = 'radio'; input.name = 'option'; input.value = o.id; input.style.width = 'auto'; if (i === 0) input.checked = true;
        label.append(input, document.createTextNode(' ' + o.label));
        const div = document.createElement('div'); div.append(label); return div;
      }));
    }
    $('poll-form').hidden = poll.status !== 'open' || votedPoll === poll.id;
    $('poll-results').replaceChildren(...(poll.results || []).map((r) => { const li = document.createElement('li'); li.textContent = r.label + ': ' + r.votes; return li; }));
    if (poll.status === 'closed') $('poll-note').textContent = 'This poll is closed.';
  }
  async function refresh() {
    try {
      const response = await fetch(config.apiBase + '/state');
      const answer = await response.json();
      if (answer.ok) render(answer.state);
    } catch {}
  }
  $('chat-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    try { await post('/chat', { name: $('chat-name').value, body: $('chat-body').value }); $('chat-body').value = ''; $('chat-note').textContent = ''; await refresh(); }
    catch (error) { $('chat-note').textContent = error.message; }
  });
  $('poll-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const pollId = $('poll').dataset.id;
    const chosen = document.querySelector('input[name=option]:checked');
    try { const answer = await post('/polls/' + pollId + '/vote', { optionId: chosen.value }); votedPoll = pollId; $('poll-note').textContent = answer.counted ? 'Thank you for voting.' : 'You have voted already.'; await refresh(); }
    catch (error) { $('poll-note').textContent = error.message; }
  });
  $('prayer-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await post('/prayer', { name: $('prayer-name').value || undefined, contact: $('prayer-contact').value || undefined, body: $('prayer-body').value, private: $('prayer-private').checked });
      $('prayer-body').value = ''; $('prayer-note').textContent = 'Thank you. The hosts will pray for you.';
    } catch (error) { $('prayer-note').textContent = error.message; }
  });
  (async () => {
    try {
      const started = await post('/session', {});
      session = started.sessionId;
      if (started.signedIn) $('member').hidden = false;
    } catch {}
    await refresh();
    setInterval(refresh, 3000);
    setInterval(() => { if (session) post('/heartbeat', { sessionId: session }).catch(() => {}); }, 30000);
  })();
})();
</script></body></html>`;
}
