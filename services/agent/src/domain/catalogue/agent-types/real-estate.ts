import type { AgentType } from '@voice/shared/contracts';

/** Agent types for the real_estate industry. */
export const REAL_ESTATE_TYPES: readonly AgentType[] = [
  {
    id: 'real_estate_lead_qualifier',
    name: 'Lead Qualifier',
    description:
      'Calls new buyer, seller and renter leads within minutes of an enquiry and qualifies them for an agent.',
    category: 'industry',
    industry: 'real_estate',
    goal: 'Find out what the lead wants, their budget and timeline, and whether they are ready to talk to an agent.',
    collects: [
      {
        name: 'intent',
        type: 'enum',
        description: 'What the lead wants to do.',
        required: true,
        options: ['buy', 'sell', 'rent', 'invest'],
      },
      {
        name: 'budget',
        type: 'number',
        description: 'Maximum budget, or expected sale price for sellers.',
        required: true,
      },
      {
        name: 'preferred_location',
        type: 'string',
        description: 'Neighbourhoods, towns or postcodes of interest.',
        required: true,
      },
      {
        name: 'timeline',
        type: 'enum',
        description: 'When the lead wants to move.',
        required: true,
        options: ['within_1_month', '1_3_months', '3_6_months', 'over_6_months'],
      },
      {
        name: 'property_type',
        type: 'enum',
        description: 'Type of property.',
        required: false,
        options: ['house', 'condo', 'townhouse', 'multi_family', 'land'],
      },
      { name: 'bedrooms', type: 'number', description: 'Minimum number of bedrooms.', required: false },
      {
        name: 'mortgage_pre_approved',
        type: 'boolean',
        description: 'Whether a buyer already has mortgage pre-approval.',
        required: false,
      },
    ],
  },
  {
    id: 'real_estate_showing_scheduler',
    name: 'Showing Scheduler',
    description:
      'Books property viewings for interested buyers and renters around the listing agent’s availability.',
    category: 'industry',
    industry: 'real_estate',
    goal: 'Book a confirmed viewing of a specific property at a time that suits the prospect.',
    collects: [
      {
        name: 'property_reference',
        type: 'string',
        description: 'Address or listing reference of the property.',
        required: true,
      },
      {
        name: 'showing_datetime',
        type: 'datetime',
        description: 'Date and time of the booked viewing.',
        required: true,
      },
      {
        name: 'attendee_count',
        type: 'number',
        description: 'How many people will attend.',
        required: false,
      },
      {
        name: 'has_buyer_agent',
        type: 'boolean',
        description: 'Whether the prospect is already working with an agent.',
        required: false,
      },
      {
        name: 'email',
        type: 'email',
        description: 'Email address for the viewing confirmation.',
        required: false,
      },
    ],
  },
  {
    id: 'real_estate_listing_prospector',
    name: 'Listing Prospector',
    description: 'Reaches owners of expired or for-sale-by-owner listings and offers a listing consultation.',
    category: 'industry',
    industry: 'real_estate',
    goal: 'Find out whether the owner still wants to sell and book a listing appointment with an agent.',
    collects: [
      { name: 'property_address', type: 'string', description: 'Address of the property.', required: true },
      {
        name: 'still_selling',
        type: 'boolean',
        description: 'Whether the owner still intends to sell.',
        required: true,
      },
      {
        name: 'desired_price',
        type: 'number',
        description: 'Price the owner hopes to achieve.',
        required: false,
      },
      {
        name: 'reason_for_selling',
        type: 'string',
        description: 'Why the owner is selling.',
        required: false,
      },
      {
        name: 'listing_appointment_datetime',
        type: 'datetime',
        description: 'Booked listing consultation.',
        required: false,
      },
    ],
  },
  {
    id: 'real_estate_open_house_follow_up',
    name: 'Open House Follow-up',
    description: 'Calls visitors who signed in at an open house to gather feedback and gauge interest.',
    category: 'industry',
    industry: 'real_estate',
    goal: 'Learn what the visitor thought of the property and whether they want a second viewing or similar listings.',
    collects: [
      {
        name: 'property_reference',
        type: 'string',
        description: 'Address or listing reference of the open house.',
        required: true,
      },
      {
        name: 'interest_level',
        type: 'enum',
        description: 'Interest in this property.',
        required: true,
        options: ['high', 'medium', 'low', 'none'],
      },
      {
        name: 'feedback',
        type: 'string',
        description: 'What the visitor liked or disliked.',
        required: false,
      },
      {
        name: 'wants_second_viewing',
        type: 'boolean',
        description: 'Whether the visitor wants another viewing.',
        required: false,
      },
      {
        name: 'wants_similar_listings',
        type: 'boolean',
        description: 'Whether the visitor wants to hear about similar properties.',
        required: false,
      },
    ],
  },
];
