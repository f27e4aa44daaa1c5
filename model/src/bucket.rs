//! The token bucket of the RTL's notification sources (`LhController`,
//! LH-08; `FastCnpSource`, FCN-06), clock for clock: `depth` tokens (1..8)
//! after reset; while the bucket is not full, one more every `refill`
//! clocks, counted from the clock after a token left the full bucket (the
//! counter rests while the bucket is full). Clocks `k` count from reset.

/// The depth the hardware uses for a depth register's value: values above
/// 8 act as 8, others by their low four bits.
pub fn depth_of(register: u32) -> u32 {
    register.min(8) & 0xF
}

#[derive(Clone, Debug, Default)]
pub struct TokenBucket {
    /// Tokens after the last event (`None`: untouched since reset, full).
    tokens: Option<u32>,
    /// While the bucket is not full: the clock its refill counter was 0.
    refill_anchor: u64,
}

impl TokenBucket {
    /// Tokens at clock `k` (refills since the last event added, capped).
    /// Clocks must not decrease from call to call.
    pub fn tokens_at(&mut self, k: u64, depth: u32, refill: u32) -> u32 {
        let r = refill.max(1) as u64;
        let mut t = self.tokens.unwrap_or(8).min(depth);
        if t < depth && k > self.refill_anchor {
            let n = (k - self.refill_anchor) / r;
            t = (t as u64 + n).min(depth as u64) as u32;
            self.refill_anchor += n * r;
        }
        self.tokens = Some(t);
        t
    }

    /// Takes a token at clock `k` (after `tokens_at(k)` said there is one).
    pub fn take(&mut self, k: u64, depth: u32) {
        let t = self.tokens.expect("tokens_at before take");
        if t >= depth {
            self.refill_anchor = k + 1;
        }
        self.tokens = Some(t - 1);
    }

    /// The first clock after `k` at which a refill is visible.
    pub fn next_refill(&self, k: u64, refill: u32) -> u64 {
        let r = refill.max(1) as u64;
        if k < self.refill_anchor {
            return self.refill_anchor + r;
        }
        self.refill_anchor + ((k - self.refill_anchor) / r + 1) * r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lh_08_a_token_returns_refill_clocks_after_it_left_the_full_bucket() {
        let mut b = TokenBucket::default();
        assert_eq!(b.tokens_at(10, 2, 100), 2);
        b.take(10, 2);
        assert_eq!(b.tokens_at(11, 2, 100), 1);
        b.take(11, 2);
        assert_eq!(b.tokens_at(110, 2, 100), 0);
        assert_eq!(b.next_refill(110, 100), 111);
        assert_eq!(b.tokens_at(111, 2, 100), 1);
        assert_eq!(b.tokens_at(211, 2, 100), 2);
        assert_eq!(b.tokens_at(5_000, 2, 100), 2, "never above the depth");
    }

    #[test]
    fn lh_08_depth_register_values_above_8_act_as_8() {
        assert_eq!(depth_of(3), 3);
        assert_eq!(depth_of(8), 8);
        assert_eq!(depth_of(9), 8);
        assert_eq!(depth_of(u32::MAX), 8);
    }
}
