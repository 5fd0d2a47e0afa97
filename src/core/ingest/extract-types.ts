/** What the offline extractor reads from a turn (see extract.ts). */

export type EntityType = 'person' | 'project' | 'package' | 'file' | 'identifier' | 'technology';
export type Predicate = 'uses' | 'prefers' | 'decided' | 'depends_on' | 'works_on' | 'located_in' | 'owns' | 'replaces';

export interface ExtractedEntity {
  name: string;
  type: EntityType;
}

export interface ExtractedRelationship {
  subject: string;
  predicate: Predicate;
  object: string;
}

export interface Extraction {
  entities: ExtractedEntity[];
  relationships: ExtractedRelationship[];
}

export interface ExtractInput {
  text: string;
  speaker?: string;
  role?: string;
}
