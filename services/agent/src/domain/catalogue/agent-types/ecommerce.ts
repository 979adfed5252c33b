import type { AgentType } from '@voice/shared/contracts';

/** Agent types for the ecommerce industry. */
export const ECOMMERCE_TYPES: readonly AgentType[] = [
  {
    id: 'ecommerce_abandoned_cart',
    name: 'Abandoned Cart Recovery',
    description: 'Calls shoppers who left items in their checkout to help them finish the purchase.',
    category: 'industry',
    industry: 'ecommerce',
    goal: 'Find out why the shopper did not finish checking out and help them complete the order.',
    collects: [
      {
        name: 'abandonment_reason',
        type: 'enum',
        description: 'Why the shopper stopped.',
        required: true,
        options: ['price', 'shipping_cost', 'delivery_time', 'payment_issue', 'just_browsing', 'other'],
      },
      {
        name: 'purchase_intent',
        type: 'enum',
        description: 'What the shopper plans to do.',
        required: true,
        options: ['complete_now', 'later', 'not_interested'],
      },
      {
        name: 'discount_accepted',
        type: 'boolean',
        description: 'Whether the shopper accepted an offered discount.',
        required: false,
      },
      {
        name: 'checkout_link_requested',
        type: 'boolean',
        description: 'Whether to send a link to the saved cart.',
        required: false,
      },
      { name: 'email', type: 'email', description: 'Email address for the cart link.', required: false },
    ],
  },
  {
    id: 'ecommerce_order_confirmation',
    name: 'Order Confirmation',
    description: 'Confirms new orders by phone, especially cash-on-delivery orders, before they ship.',
    category: 'industry',
    industry: 'ecommerce',
    goal: 'Confirm the customer really placed the order and that the delivery details are right before dispatch.',
    collects: [
      {
        name: 'order_confirmed',
        type: 'boolean',
        description: 'Whether the customer confirmed the order.',
        required: true,
      },
      {
        name: 'delivery_address_confirmed',
        type: 'boolean',
        description: 'Whether the delivery address is correct.',
        required: true,
      },
      {
        name: 'address_correction',
        type: 'string',
        description: 'Corrected address, if it was wrong.',
        required: false,
      },
      {
        name: 'preferred_delivery_date',
        type: 'date',
        description: 'Date the customer prefers delivery.',
        required: false,
      },
      {
        name: 'alternate_phone',
        type: 'phone',
        description: 'Another number for the courier.',
        required: false,
      },
    ],
  },
  {
    id: 'ecommerce_delivery_follow_up',
    name: 'Delivery Follow-up',
    description: 'Checks that orders arrived in good condition and resolves delivery problems early.',
    category: 'industry',
    industry: 'ecommerce',
    goal: 'Confirm the order arrived complete and undamaged and start a fix if it did not.',
    collects: [
      {
        name: 'order_number',
        type: 'string',
        description: 'Order number being followed up.',
        required: true,
      },
      {
        name: 'delivery_received',
        type: 'boolean',
        description: 'Whether the order arrived.',
        required: true,
      },
      {
        name: 'item_condition',
        type: 'enum',
        description: 'State of the delivered items.',
        required: false,
        options: ['perfect', 'damaged', 'wrong_item', 'missing_items'],
      },
      {
        name: 'replacement_requested',
        type: 'boolean',
        description: 'Whether the customer wants a replacement.',
        required: false,
      },
      {
        name: 'satisfaction_rating',
        type: 'number',
        description: 'Satisfaction from 1 to 5.',
        required: false,
      },
    ],
  },
  {
    id: 'ecommerce_returns_assistant',
    name: 'Returns Assistant',
    description: 'Handles return and exchange requests and explains how to send items back.',
    category: 'industry',
    industry: 'ecommerce',
    goal: 'Capture why the item is being returned and what the customer wants instead, and start the return.',
    collects: [
      { name: 'order_number', type: 'string', description: 'Order the item came from.', required: true },
      {
        name: 'return_reason',
        type: 'enum',
        description: 'Why the item is returned.',
        required: true,
        options: ['too_small', 'too_large', 'defective', 'not_as_described', 'changed_mind', 'other'],
      },
      {
        name: 'resolution',
        type: 'enum',
        description: 'What the customer wants.',
        required: true,
        options: ['refund', 'exchange', 'store_credit'],
      },
      {
        name: 'item_unused',
        type: 'boolean',
        description: 'Whether the item is unused with tags or packaging.',
        required: false,
      },
    ],
  },
];
