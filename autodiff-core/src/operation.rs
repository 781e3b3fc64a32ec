//! The names of the operations a node can record, expanded from the one
//! table of operations (`autodiff-ops-table`): a new operation is a row
//! there, and its derivative rule in `rules.rs`.

use std::fmt;

/// Expands the table into the enum, its names and its index table.
macro_rules! scalar_operation {
    ($($variant:ident $name:literal $spelling:ident $(($($how:tt),*))? $operands:literal $rule:ident $(($function:ident))? $absorbs:ident $computes:literal $derivative:literal;)*) => {
        /// The operation that produced a node.
        ///
        /// `as_str` gives a stable, locale-neutral name (`"mul"`, `"tanh"`)
        /// used in error messages and the ledger.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ScalarOperation {
            $(
                #[doc = $computes]
                #[doc = ""]
                #[doc = concat!("Derivative: ", $derivative, ".")]
                $variant,
            )*
        }

        impl ScalarOperation {
            /// A stable, locale-neutral name suitable for deterministic evidence.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)*
                }
            }

            /// Whether the node is a leaf (no operand edges).
            pub const fn is_leaf(self) -> bool {
                match self {
                    $(Self::$variant => $operands == 0,)*
                }
            }

            /// Every operation, in declaration order: `ALL[op as usize] == op`.
            const ALL: &[Self] = &[$(Self::$variant),*];
        }
    };
}

autodiff_ops_table::operations!(scalar_operation);

impl ScalarOperation {
    /// The operation whose discriminant is `index` (`op as u8`), as a tape
    /// packs it; an index no operation has is a bug and panics.
    pub(crate) fn from_index(index: u8) -> Self {
        Self::ALL[usize::from(index)]
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
        for &op in ScalarOperation::ALL {
            assert_eq!(ScalarOperation::from_index(op as u8), op);
        }
        // A node packs its operation into 8 bits.
        assert!(ScalarOperation::ALL.len() <= 256);
    }

    #[test]
    fn the_enum_is_the_table() {
        let table = autodiff_ops_table::OPERATIONS;
        assert_eq!(ScalarOperation::ALL.len(), table.len());
        for (op, row) in ScalarOperation::ALL.iter().zip(table) {
            assert_eq!(op.as_str(), row.name);
            assert_eq!(format!("{op:?}"), row.variant);
            assert_eq!(op.is_leaf(), row.operands == 0);
        }
        assert!(ScalarOperation::Variable.is_leaf() && ScalarOperation::Detached.is_leaf());
        assert!(!ScalarOperation::Multiply.is_leaf());
        assert_eq!(ScalarOperation::Multiply.as_str(), "mul");
    }
}
