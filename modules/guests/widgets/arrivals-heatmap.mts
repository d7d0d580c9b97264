// Arrivals heatmap: guests_get_analytics_heatmap's arrivals by time slot (columns) and location (rows).
import { heatmap } from '../../widget-svg-charts.mjs';
import { el, startWidget } from '../../widget-view.mjs';

interface Heatmap {
  from: string;
  to: string;
  timeZone: string;
  slotMinutes: number;
  slots: string[];
  locations: Array<{ locationId: string; locationName: string; arrivals: number[]; total: number }>;
  busiest: { locationName: string; slot: string; arrivals: number } | null;
}

function arrivals(data: Heatmap): Node {
  return el('section', {},
    el('h1', {}, `Arrivals ${data.from} to ${data.to}`),
    el('p', { class: 'muted', 'data-field': 'busiest' }, data.busiest
      ? `Busiest: ${data.busiest.locationName} at ${data.busiest.slot}, ${data.busiest.arrivals} arrivals (${data.slotMinutes}-minute slots, ${data.timeZone})`
      : 'No arrivals in this range.'),
    heatmap({
      name: 'arrivals-heatmap', title: `Arrivals by ${data.slotMinutes}-minute slot and location`,
      summary: `Arrivals by location: ${data.locations.map((location) => `${location.locationName} ${location.total}`).join('; ')}${data.busiest ? `; busiest ${data.busiest.locationName} at ${data.busiest.slot}` : ''}`,
      columns: data.slots,
      rows: data.locations.map((location) => ({ label: location.locationName, values: location.arrivals })),
    }));
}

startWidget('steward-arrivals-heatmap', arrivals);
