//! The names of the operations a node can record.

use std::fmt;

/// The operation that produced a node.
///
/// `as_str` gives a stable, locale-neutral name (`"mul"`, `"tanh"`) used in
/// error messages and the ledger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ScalarOperation {
    /// A tracked leaf made by [`Tape::variable`](crate::Tape::variable).
    Variable,
    /// An untracked leaf made by [`Tape::constant`](crate::Tape::constant).
    Constant,
    /// An untracked leaf made by [`Scalar::detach`](crate::Scalar::detach).
    Detached,
    /// `a + b`
    Add,
    /// `a * b`
    Multiply,
    /// `-a`
    Negate,
    /// `a - b`
    Subtract,
    /// `a / b`
    Divide,
    /// `e^a`
    Exp,
    /// `ln a`
    Ln,
    /// `tanh a`
    Tanh,
    /// `sin a`
    Sin,
    /// `cos a`
    Cos,
    /// `√a`
    Sqrt,
    /// `a^n`, integer `n`
    Powi,
    /// `a^b`, real `b`
    Powf,
    /// `|a|`
    Abs,
    /// `max(a, b)`
    Max,
    /// `min(a, b)`
    Min,
    /// `1 / a`
    Recip,
    /// `max(a, 0)`
    Relu,
    /// `1 / (1 + e^-a)`
    Sigmoid,
}

impl ScalarOperation {
    /// A stable, locale-neutral name suitable for deterministic evidence.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Variable => "variable",
            Self::Constant => "constant",
            Self::Detached => "detached",
            Self::Add => "add",
            Self::Multiply => "mul",
            Self::Negate => "neg",
            Self::Subtract => "sub",
            Self::Divide => "div",
            Self::Exp => "exp",
            Self::Ln => "ln",
            Self::Tanh => "tanh",
            Self::Sin => "sin",
            Self::Cos => "cos",
            Self::Sqrt => "sqrt",
            Self::Powi => "powi",
            Self::Powf => "powf",
            Self::Abs => "abs",
            Self::Max => "max",
            Self::Min => "min",
            Self::Recip => "recip",
            Self::Relu => "relu",
            Self::Sigmoid => "sigmoid",
        }
    }

    /// Every operation, in declaration order: `ALL[op as usize] == op`.
    const ALL: [Self; 22] = [
        Self::Variable,
        Self::Constant,
        Self::Detached,
        Self::Add,
        Self::Multiply,
        Self::Negate,
        Self::Subtract,
        Self::Divide,
        Self::Exp,
        Self::Ln,
        Self::Tanh,
        Self::Sin,
        Self::Cos,
        Self::Sqrt,
        Self::Powi,
        Self::Powf,
        Self::Abs,
        Self::Max,
        Self::Min,
        Self::Recip,
        Self::Relu,
        Self::Sigmoid,
    ];

    /// The operation whose discriminant is `index` (`op as u8`), as a tape
    /// packs it; an index no operation has is a bug and panics.
    pub(crate) fn from_index(index: u8) -> Self {
        Self::ALL[usize::from(index)]
    }

    /// Whether the node is a leaf (no operand edges).
    pub const fn is_leaf(self) -> bool {
        matches!(self, Self::Variable | Self::Constant | Self::Detached)
    }
}

impl fmt::Display for ScalarOperation {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::ScalarOperation;

    #[test]
    fn every_operation_survives_packing() {
        for op in ScalarOperation::ALL {
            assert_eq!(ScalarOperation::from_index(op as u8), op);
        }
        // The table lists each operation once: names are unique.
        let mut names: Vec<&str> = ScalarOperation::ALL.iter().map(|op| op.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ScalarOperation::ALL.len());
    }
}
