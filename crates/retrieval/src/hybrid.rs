//! Hybrid scoring: mixes embedding similarity with a normalised BM25 score,
//! `alpha · cosine + (1 − alpha) · norm(bm25)`, by seed 000's five combine methods.

use config::CombineMethod;

fn sigmoid01(x: f32) -> f32 {
    // 2σ(x) − 1: 0 for no keyword evidence, towards 1 for strong evidence.
    2.0 / (1.0 + (-x).exp()) - 1.0
}

/// Normalises raw BM25 scores (aligned with the candidates) into [0, 1].
pub fn normalise_bm25(method: CombineMethod, raw: &[f32]) -> Vec<f32> {
    let max = raw.iter().copied().fold(0.0f32, f32::max);
    let min = raw.iter().copied().fold(f32::INFINITY, f32::min).min(max);
    let minmax = |x: f32| {
        if max <= 0.0 {
            0.0
        } else if max - min <= f32::EPSILON {
            // One distinct value: every candidate with keyword evidence gets full marks.
            if x > 0.0 { 1.0 } else { 0.0 }
        } else {
            (x - min) / (max - min)
        }
    };
    raw.iter()
        .map(|&x| match method {
            CombineMethod::Minmax => minmax(x),
            CombineMethod::Sigmoid => sigmoid01(x),
            CombineMethod::Tanh => x.tanh(),
            CombineMethod::MinmaxSigmoid => 0.5 * (minmax(x) + sigmoid01(x)),
            CombineMethod::MinmaxTanh => 0.5 * (minmax(x) + x.tanh()),
        })
        .collect()
}

/// The hybrid score of each candidate: `alpha · cosine + (1 − alpha) · norm(bm25)`.
/// `cosines` and `bm25` are aligned; cosine is clamped at 0 (opposite meaning is no evidence).
pub fn combine(method: CombineMethod, alpha: f32, cosines: &[f32], bm25: &[f32]) -> Vec<f32> {
    let alpha = alpha.clamp(0.0, 1.0);
    normalise_bm25(method, bm25)
        .into_iter()
        .zip(cosines)
        .map(|(b, c)| alpha * c.max(0.0) + (1.0 - alpha) * b)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_maps_bm25_into_unit_range() {
        let raw = [0.0, 1.5, 6.0, 3.0];
        let mut out = String::new();
        for m in CombineMethod::ALL {
            let n = normalise_bm25(*m, &raw);
            assert!(n.iter().all(|x| (0.0..=1.0).contains(x)), "{m}: {n:?}");
            assert_eq!(n[0], 0.0, "{m}: no keyword evidence scores 0");
            out += &format!(
                "{:<15} {}\n",
                m.as_str(),
                n.iter()
                    .map(|x| format!("{x:.3}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
        expect_test::expect![[r#"
            minmax          0.000 0.250 1.000 0.500
            sigmoid         0.000 0.635 0.995 0.905
            tanh            0.000 0.905 1.000 0.995
            minmax_sigmoid  0.000 0.443 0.998 0.703
            minmax_tanh     0.000 0.578 1.000 0.748
        "#]]
        .assert_eq(&out);
    }

    #[test]
    fn alpha_weighs_the_two_signals() {
        let s = combine(CombineMethod::Minmax, 0.7, &[0.9, 0.2], &[0.0, 4.0]);
        assert!(
            (s[0] - 0.63).abs() < 1e-6 && (s[1] - 0.44).abs() < 1e-6,
            "{s:?}"
        );
        assert_eq!(combine(CombineMethod::Minmax, 1.0, &[0.5], &[9.0]), [0.5]);
        assert_eq!(combine(CombineMethod::Minmax, 0.5, &[-0.4], &[0.0]), [0.0]);
    }
}
