import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/**
 * Media Hub's probes: A's media item (an upload begun), series and draft episode with a song; B names
 * them and must get exactly what a missing id gets, and finds none of A's words by search. B's own
 * series and episode name A's Media Library image (the platform part's) as artwork: missing too.
 */
export const isolation: IsolationPart = {
  tables: [],
  secrets: ['Apart sermon recording', 'Apart series', 'Apart episode', 'Apart hymn', 'Apart preacher'],
  async seed({ harness, a, b }) {
    const call = (tool: string, args: Record<string, unknown>) => harness.call(a.apiKey, tool, args);
    const { series: bSeries } = await harness.call(b.apiKey, 'mediahub_create_series', { title: 'B own series', channel: 'B own channel' });
    const { episode: bEpisode } = await harness.call(b.apiKey, 'mediahub_create_episode', { seriesId: bSeries.id, title: 'B own episode', date: '2026-11-29' });
    const begun = await call('mediahub_begin_upload', { fileName: 'apart.wav', fileSize: 1000, title: 'Apart sermon recording' });
    const { series } = await call('mediahub_create_series', { title: 'Apart series' });
    const { episode } = await call('mediahub_create_episode', { seriesId: series.id, title: 'Apart episode', speaker: 'Apart preacher', date: '2026-11-29', songs: [{ title: 'Apart hymn' }] });
    return {
      mediahubItem: begun.itemId, mediahubSeries: series.id, mediahubEpisode: episode.id, mediahubEpisodeSong: episode.songs[0].id,
      mediahubSeriesOfB: bSeries.id, mediahubEpisodeOfB: bEpisode.id,
    };
  },
  entries: {
    mediahub_get_item: [{ args: (i) => ({ itemId: i.mediahubItem }) }],
    mediahub_complete_upload: [{ args: (i) => ({ itemId: i.mediahubItem }) }],
    mediahub_update_item: [{ args: (i) => ({ itemId: i.mediahubItem, title: 'Taken over' }) }],
    mediahub_archive_item: [{ args: (i) => ({ itemId: i.mediahubItem }) }],
    mediahub_list_items: [{ args: () => ({}), outcome: 'no_leak' }],
    mediahub_list_series: [{ args: () => ({}), outcome: 'no_leak' }],
    mediahub_search: [{ args: () => ({ query: 'Apart' }), outcome: 'no_leak' }],
    mediahub_create_series: [
      { args: (i) => ({ title: 'B series', artworkItemId: i.mediahubItem }) },
      { label: 'Media Library artwork', args: (i) => ({ title: 'B series', artworkMediaId: i.mediaFile }) },
    ],
    mediahub_create_episode: [
      { args: (i) => ({ seriesId: i.mediahubSeries, title: 'B episode', date: '2026-11-29' }) },
      { label: 'audio', args: (i) => ({ seriesId: i.mediahubSeries, title: 'B episode', date: '2026-11-29', audioItemId: i.mediahubItem }) },
      { label: 'Media Library artwork', args: (i) => ({ seriesId: i.mediahubSeriesOfB, title: 'B episode', date: '2026-11-29', artworkMediaId: i.mediaFile }) },
    ],
    mediahub_get_episode: [{ args: (i) => ({ episodeId: i.mediahubEpisode }) }],
    mediahub_update_episode: [
      { args: (i) => ({ episodeId: i.mediahubEpisode, title: 'Taken over' }) },
      { label: 'song licence', args: (i) => ({ episodeId: i.mediahubEpisode, songLicences: [{ songId: i.mediahubEpisodeSong, licence: 'streaming' }] }) },
      { label: 'Media Library artwork', args: (i) => ({ episodeId: i.mediahubEpisodeOfB, artworkMediaId: i.mediaFile }) },
    ],
    mediahub_publish_episode: [{ args: (i) => ({ episodeId: i.mediahubEpisode }) }],
    mediahub_unpublish_episode: [{ args: (i) => ({ episodeId: i.mediahubEpisode }) }],
    mediahub_transcribe_episode: [{ args: (i) => ({ episodeId: i.mediahubEpisode }) }],
    mediahub_get_episode_stats: [{ args: (i) => ({ episodeId: i.mediahubEpisode }) }],
    mediahub_get_feed_url: [{ args: () => ({ channel: 'Sermons' }) }],
  },
};
