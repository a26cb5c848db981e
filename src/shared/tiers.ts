import type { Tier } from '../contract/me.js';

/** Spec: Limits → Send caps per tier, Plus addresses. Counted per recipient. */
export interface TierCaps {
  monthly: number;
  daily: number;
  hourly: number;
  priceUsd: number;
  plusAddressesPerDay: number;
  agents: number;
  /**
   * Inbound messages parsed per month, reported as `caps.monthly_parses` (compat.md: clients type it
   * as a number). This daemon counts parses against it in `usage.parses` but does not refuse mail
   * past it: inbound is bounded by the plus-address and record caps (docs/resources.md → Usage).
   */
  monthlyParses: number;
}

export const TIER_CAPS: Record<Tier, TierCaps> = {
  free: { monthly: 3_000, daily: 300, hourly: 30, priceUsd: 0, plusAddressesPerDay: 20, agents: 10, monthlyParses: 3_000 },
  pro: { monthly: 50_000, daily: 5_000, hourly: 500, priceUsd: 20, plusAddressesPerDay: 1_000, agents: 100, monthlyParses: 50_000 },
  scale: { monthly: 250_000, daily: 20_000, hourly: 2_000, priceUsd: 99, plusAddressesPerDay: 10_000, agents: 1_000, monthlyParses: 250_000 },
};

export function capsFor(tier: string): TierCaps {
  return TIER_CAPS[(tier in TIER_CAPS ? tier : 'free') as Tier];
}
