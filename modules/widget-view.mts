/**
 * Browser side of every Steward widget (bundled into each widget's HTML, never run by Node).
 * Elements are built with the DOM, text always as text nodes: names, notes and messages are
 * what people typed, so nothing a tool returns is ever parsed as HTML.
 */
import { WidgetApp } from './widget-app.mjs';
import { minorUnitsAsDecimal } from '../core/money.js';

export type Child = Node | string | number | null | undefined | false | readonly Child[];

/** An element with attributes and children; event-handler attributes are refused (behaviour is wired with `on`). */
export function el(tag: string, attributes: Record<string, string | undefined> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (/^on/i.test(name)) throw new Error(`Widgets wire events with on(), not the ${name} attribute`);
    if (value !== undefined) element.setAttribute(name, value);
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'object' ? child as Node : document.createTextNode(String(child)));
  }
}

/** A `<dl>` of the fields that have a value. */
export function fields(rows: ReadonlyArray<readonly [string, string | number | null | undefined]>): HTMLElement {
  const shown = rows.filter(([, value]) => value !== null && value !== undefined && value !== '');
  return el('dl', {}, shown.map(([label, value]) => [el('dt', {}, label), el('dd', {}, String(value))]));
}

/** A date-time as the reader's locale writes it; the ISO text when it is not one. */
/**
 * An amount of integer minor units in the reader's locale: the exact decimal goes to Intl as a
 * string (never divided as a float); a currency Intl does not know reads "12.00 XYZ".
 */
export function money(minor: number, currency: string): string {
  const decimal = minorUnitsAsDecimal(minor, currency);
  try {
    // Intl formats a decimal string exactly (ECMA-402 2023); the type still says number.
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(decimal as unknown as number);
  } catch {
    return `${decimal} ${currency}`;
  }
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** What a tool call from a widget came back with: the structured result, or Steward's error. */
export type ToolOutcome =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; code: string; message: string };

export interface WidgetRuntime {
  /** Calls a Steward tool through the host, so the server's own checks decide. */
  callTool(name: string, args: Record<string, unknown>): Promise<ToolOutcome>;
}

interface ResultLike {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: ReadonlyArray<{ type: string; text?: string }>;
}

/** Steward sends errors as `{ error: { code, message } }` text; anything else is shown as it came. */
export function outcomeOf(result: ResultLike): ToolOutcome {
  if (!result.isError && result.structuredContent) return { ok: true, data: result.structuredContent };
  const text = result.content?.find((block) => block.type === 'text')?.text ?? '';
  try {
    const { error } = JSON.parse(text) as { error?: { code?: string; message?: string } };
    return { ok: false, code: error?.code ?? 'error', message: error?.message ?? text };
  } catch {
    return { ok: false, code: 'error', message: text || 'The tool gave no result' };
  }
}

/** A short line under a control saying how its call went; `role=status` so screen readers hear it. */
export function statusLine(outcome: ToolOutcome, success: string): HTMLElement {
  return outcome.ok
    ? el('p', { role: 'status', class: 'ok' }, success)
    : el('p', { role: 'alert', class: 'error', 'data-code': outcome.code }, outcome.message);
}

/** One button of a decision bar: the tool it calls and what to say when the call succeeds. */
export interface Decision {
  label: string;
  /** `data-action` of the button, for tests and styles. */
  action: string;
  primary?: boolean;
  tool: string;
  args: Record<string, unknown>;
  success: (data: Record<string, unknown>) => string;
  /**
   * For a call that answered but whose effect did not happen (an approved message whose send was
   * refused): the reason, shown as a failure with the buttons kept so the person can try again.
   */
  failure?: (data: Record<string, unknown>) => string | undefined;
}

/**
 * Buttons that each call a tool through the host. While a call runs every button is disabled;
 * a success replaces the bar with its line (and `onDecided` updates the card), a refusal keeps
 * the buttons and shows the server's message, so the person can see why and try again.
 */
export function decisionBar(runtime: WidgetRuntime, decisions: readonly Decision[], onDecided: (data: Record<string, unknown>) => void): HTMLElement {
  const bar = el('div', { class: 'actions' });
  const buttons = decisions.map((decision) => el('button', { type: 'button', 'data-action': decision.action, class: decision.primary ? 'primary' : undefined }, decision.label) as HTMLButtonElement);
  const setDisabled = (disabled: boolean) => buttons.forEach((button) => { button.disabled = disabled; });
  decisions.forEach((decision, index) => buttons[index].addEventListener('click', () => {
    setDisabled(true);
    bar.querySelector('[role=alert]')?.remove();
    void runtime.callTool(decision.tool, decision.args).then((outcome) => {
      const failed = outcome.ok ? decision.failure?.(outcome.data) : undefined;
      if (outcome.ok && failed) {
        onDecided(outcome.data);
        setDisabled(false);
        bar.appendChild(statusLine({ ok: false, code: 'not_done', message: failed }, ''));
      } else if (outcome.ok) {
        onDecided(outcome.data);
        bar.replaceWith(statusLine(outcome, decision.success(outcome.data)));
      } else {
        setDisabled(false);
        bar.appendChild(statusLine(outcome, ''));
      }
    });
  }));
  append(bar, buttons);
  return bar;
}

/**
 * Connects to the host and shows `render` of each tool result it delivers (an error result as
 * its message). `name` identifies the view to the host.
 */
export function startWidget<T>(name: string, render: (data: T, runtime: WidgetRuntime) => Node): void {
  const root = document.getElementById('root')!;
  const app = new WidgetApp({ name, version: '0.1.0' });
  const runtime: WidgetRuntime = {
    callTool: async (tool, args) => {
      try {
        return outcomeOf(await app.callServerTool({ name: tool, arguments: args }) as ResultLike);
      } catch (error) {
        return { ok: false, code: 'host_error', message: error instanceof Error ? error.message : String(error) };
      }
    },
  };
  app.ontoolresult = (result) => {
    const outcome = outcomeOf(result as ResultLike);
    root.replaceChildren(outcome.ok ? render(outcome.data as T, runtime) : statusLine(outcome, ''));
    root.setAttribute('data-state', outcome.ok ? 'ready' : 'error');
  };
  void app.connect();
}
