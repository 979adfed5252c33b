/** One row of the calls board: a call as the `callStatusChanged` subscription sends it (the board's fields). */
export interface BoardCall {
  id: string;
  status: string;
  phoneNumber: string;
  agentId: string;
  agentName: string;
  campaignId: string | null;
  createdAt: string;
  durationSeconds: number;
  totalCost: number;
  costCurrency: string;
}
