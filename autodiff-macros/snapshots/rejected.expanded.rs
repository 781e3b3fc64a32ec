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
    "closures are not supported in a #[differentiable] function: write a loop, or a separate #[differentiable] function"
}
fn wrong<T>(x: f32) -> f32 {
    let f = |v: f64| v.sin_cos();
    x
}
