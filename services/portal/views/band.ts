import { html, type SafeHtml } from '../html.ts';

/**
 * A band always named in text, with a marker shape (portal.css) besides its colour: the colours,
 * chosen to stay apart under colour-blindness, never carry the meaning alone.
 */
export const bandBadge = (band: string): SafeHtml => html`<span class="band band-${band}">${band}</span>`;
