::core::compile_error! {
    "#[differentiable] functions cannot be generic over types: write the function for f64"
}
::core::compile_error! {
    "f32 is not supported: gradients are exact in f64, so use `f64`"
}
::core::compile_error! {
    "f32 is not supported: gradients are exact in f64, so use `f64`"
}
::core::compile_error! {
    "`trunc` has no derivative rule in #[differentiable]; supported methods: exp, ln, tanh, sin, cos, sqrt, powi, powf, abs, max, min, recip, tan, atan, sinh, cosh, asin, acos, ln_1p, exp_m1, log10, log2, cbrt, signum, floor, ceil, round, hypot, log, exp2, asinh, acosh, atanh, atan2, mul_add, clamp, relu, sigmoid, sin_cos; on slices and iterators: sum, product, len, is_empty, iter, into_iter, enumerate, zip, rev, skip, take, take_while, skip_while, step_by, chunks, windows, copied, cloned, clone, as_slice, to_vec, push, next, first, last, get, map, flat_map, flatten, filter, fold, reduce, max_by, min_by, for_each, all, any, count, position, collect, extend, unwrap, unwrap_or, swap, reverse, pop, insert, remove, extend_from_slice, truncate, clear, resize, fill, sort_by, concat, split_at, chain, cycle; tests of the value: is_nan, is_finite, is_infinite, is_normal, is_subnormal, is_sign_positive, is_sign_negative, total_cmp, partial_cmp"
}
fn wrong<T>(x: f32) -> f32 {
    let f = |v: f64| v.trunc();
    x
}
