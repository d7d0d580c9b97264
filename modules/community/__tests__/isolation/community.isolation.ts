import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** The community board and roster: B's key with A's posts, prayer requests, life events and contacts. */
export const isolation: IsolationPart = {
  tables: ['community_posts'],
  secrets: ['Pray for the Apart harvest', 'Welcome to the Apart baby'],
  async seed({ harness, a, ids }) {
    const request = (await harness.call(a.apiKey, 'people_add_prayer_request', { contactId: ids.contact, request: 'Pray for the Apart harvest', visibility: 'congregation' })).prayerRequest.id;
    const wallPost = (await harness.call(a.apiKey, 'community_share_prayer_request', { prayerRequestId: request, consentConfirmed: true })).post.id;
    await harness.call(a.apiKey, 'community_approve_post', { postId: wallPost });
    const pendingPost = (await harness.call(a.apiKey, 'community_share_prayer_request', {
      prayerRequestId: (await harness.call(a.apiKey, 'people_add_prayer_request', { contactId: ids.contact, request: 'Pray for the Apart harvest, again', visibility: 'congregation' })).prayerRequest.id,
      consentConfirmed: true,
    })).post.id;
    const lifeEvent = (await harness.call(a.apiKey, 'people_record_life_event', { contactId: ids.contact, type: 'birth', title: 'Welcome to the Apart baby', shareWithCommunity: true })).lifeEvent.id;
    return { communityRequest: request, communityWallPost: wallPost, communityPendingPost: pendingPost, communityLifeEvent: lifeEvent };
  },
  entries: {
    community_share_prayer_request: [{ args: (i) => ({ prayerRequestId: i.communityRequest, consentConfirmed: true }) }],
    community_share_celebration: [{ args: (i) => ({ lifeEventId: i.communityLifeEvent, consentConfirmed: true }) }],
    community_get_post: [{ args: (i) => ({ postId: i.communityWallPost }) }],
    community_approve_post: [{ args: (i) => ({ postId: i.communityPendingPost }) }],
    community_reject_post: [{ args: (i) => ({ postId: i.communityPendingPost, reason: 'B says no' }) }],
    community_remove_post: [{ args: (i) => ({ postId: i.communityWallPost }) }],
    community_record_prayer: [{ args: (i) => ({ postId: i.communityWallPost }) }],
    community_mark_prayer_answered: [{ args: (i) => ({ postId: i.communityWallPost }) }],
    community_set_roster_membership: [{ args: (i) => ({ contactId: i.contact, member: true }) }],
    community_list_prayer_wall: [{ args: () => ({}), outcome: 'no_leak' }],
    community_list_moderation_queue: [{ args: () => ({}), outcome: 'no_leak' }],
  },
};
