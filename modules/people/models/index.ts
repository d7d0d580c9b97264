import type { Sequelize } from 'sequelize';
import { sequelize } from '../../../db/sequelize';
import { ContactMerge } from './contact-merges';
import { ContactStatusEvent } from './contact-status-events';
import { ContactTag } from './contact-tags';
import { Contact } from './contacts';
import { CrmGroupMember } from './crm-group-members';
import { CrmGroup } from './crm-groups';
import { CustomFieldDefinition } from './custom-field-definitions';
import { CustomFieldSection } from './custom-field-sections';
import { FamilyRelationship } from './family-relationships';
import { FollowUpTask } from './follow-up-tasks';
import { Note } from './notes';
import { OutreachItem } from './outreach-items';
import { PastoralAutomation } from './pastoral-automations';
import { PostcodeCacheEntry } from './postcode-cache';
import { SegmentMember } from './segment-members';
import { Segment } from './segments';
import { TagCategory } from './tag-categories';
import { Tag } from './tags';
import { TimelineEntry } from './timeline-entries';

export {
  Contact, ContactMerge, ContactStatusEvent, ContactTag, CrmGroup, CrmGroupMember, CustomFieldDefinition, CustomFieldSection,
  FamilyRelationship, FollowUpTask, Note, OutreachItem, PastoralAutomation, PostcodeCacheEntry, Segment, SegmentMember, Tag,
  TagCategory, TimelineEntry,
};

const initialised = new WeakSet<Sequelize>();

/**
 * Defines the people module's models and their associations on `instance`. Associations stay
 * inside the module: another module reaches contacts through people's services, never its models.
 */
export function initPeopleModels(instance: Sequelize) {
  const models = [
    Contact.initModel(instance), TagCategory.initModel(instance), Tag.initModel(instance), ContactTag.initModel(instance),
    Note.initModel(instance), TimelineEntry.initModel(instance), PastoralAutomation.initModel(instance),
    OutreachItem.initModel(instance), ContactMerge.initModel(instance), FamilyRelationship.initModel(instance),
    ContactStatusEvent.initModel(instance), CrmGroup.initModel(instance), CrmGroupMember.initModel(instance),
    CustomFieldSection.initModel(instance), CustomFieldDefinition.initModel(instance), Segment.initModel(instance),
    SegmentMember.initModel(instance), FollowUpTask.initModel(instance), PostcodeCacheEntry.initModel(instance),
  ] as const;
  if (initialised.has(instance)) return models;
  initialised.add(instance);

  // Tags on contacts, and the category a tag is filed under.
  Contact.belongsToMany(Tag, { through: ContactTag, foreignKey: 'contactId', otherKey: 'tagId', as: 'tags' });
  Tag.belongsToMany(Contact, { through: ContactTag, foreignKey: 'tagId', otherKey: 'contactId', as: 'contacts' });
  TagCategory.hasMany(Tag, { foreignKey: 'categoryId', as: 'tags' });
  Tag.belongsTo(TagCategory, { foreignKey: 'categoryId', as: 'category' });

  // Family links: one row per direction, from contactId to relatedContactId.
  Contact.hasMany(FamilyRelationship, { foreignKey: 'contactId', as: 'familyLinks' });
  FamilyRelationship.belongsTo(Contact, { foreignKey: 'contactId', as: 'contact' });
  FamilyRelationship.belongsTo(Contact, { foreignKey: 'relatedContactId', as: 'relatedContact' });

  // Groups and their members.
  CrmGroup.hasMany(CrmGroupMember, { foreignKey: 'groupId', as: 'members' });
  CrmGroupMember.belongsTo(CrmGroup, { foreignKey: 'groupId', as: 'group' });
  CrmGroupMember.belongsTo(Contact, { foreignKey: 'contactId', as: 'contact' });
  Contact.hasMany(CrmGroupMember, { foreignKey: 'contactId', as: 'groupMemberships' });

  // Segments and their members.
  Segment.hasMany(SegmentMember, { foreignKey: 'segmentId', as: 'members' });
  SegmentMember.belongsTo(Segment, { foreignKey: 'segmentId', as: 'segment' });
  SegmentMember.belongsTo(Contact, { foreignKey: 'contactId', as: 'contact' });

  // Custom fields under their section.
  CustomFieldSection.hasMany(CustomFieldDefinition, { foreignKey: 'sectionId', as: 'fields' });
  CustomFieldDefinition.belongsTo(CustomFieldSection, { foreignKey: 'sectionId', as: 'section' });

  // What hangs off one contact.
  Contact.hasMany(Note, { foreignKey: 'contactId', as: 'notes' });
  Note.belongsTo(Contact, { foreignKey: 'contactId', as: 'contact' });
  Contact.hasMany(TimelineEntry, { foreignKey: 'contactId', as: 'timeline' });
  TimelineEntry.belongsTo(Contact, { foreignKey: 'contactId', as: 'contact' });
  Contact.hasMany(FollowUpTask, { foreignKey: 'contactId', as: 'followUpTasks' });
  FollowUpTask.belongsTo(Contact, { foreignKey: 'contactId', as: 'contact' });
  Contact.hasMany(ContactStatusEvent, { foreignKey: 'contactId', as: 'statusEvents' });
  ContactStatusEvent.belongsTo(Contact, { foreignKey: 'contactId', as: 'contact' });
  Contact.hasMany(OutreachItem, { foreignKey: 'contactId', as: 'outreachItems' });
  OutreachItem.belongsTo(Contact, { foreignKey: 'contactId', as: 'contact' });
  PastoralAutomation.hasMany(OutreachItem, { foreignKey: 'automationId', as: 'outreachItems' });
  OutreachItem.belongsTo(PastoralAutomation, { foreignKey: 'automationId', as: 'automation' });
  ContactMerge.belongsTo(Contact, { foreignKey: 'keptContactId', as: 'keptContact' });
  ContactMerge.belongsTo(Contact, { foreignKey: 'mergedContactId', as: 'mergedContact' });
  return models;
}

/** Every people model, defined on the process's instance when this file is first imported. */
export const peopleModels = initPeopleModels(sequelize);
