//! Token embeddings kept as the GGUF file stores them (Scope Weaver patch, vendor/PATCHES.md
//! mistralrs-core 9): upstream dequantizes the whole table to f32 at load, 151,936 × 1,536 × 4 bytes
//! = 933 MB for Qwen2.5-1.5B (544 MB for the 0.5B), to read a few thousand rows per request. Here
//! each looked-up row is dequantized when it is read, and a model whose output layer is tied to
//! the embeddings shares the one quantized table with it instead of loading it twice.

use std::borrow::Cow;
use std::sync::Arc;

use candle_core::quantized::{QStorage, QTensor};
use candle_core::{DType, Device, Module, Result, Tensor};

/// A quantized `[vocab, hidden]` embedding table.
#[derive(Debug, Clone)]
pub struct QuantizedEmbedding {
    table: Arc<QTensor>,
    vocab: usize,
    hidden: usize,
    /// Bytes of one row (a token's vector) in the table's quantization.
    row_bytes: usize,
    device: Device,
    /// The whole table in f32 (upstream's way), with `SCOPE_WEAVER_DEBUG_DENSE_EMBEDDINGS=1`: to compare.
    dense: Option<Tensor>,
}

impl QuantizedEmbedding {
    pub fn new(table: Arc<QTensor>, device: &Device) -> Result<Self> {
        let (vocab, hidden) = table.shape().dims2()?;
        let dtype = table.dtype();
        if hidden % dtype.block_size() != 0 {
            candle_core::bail!(
                "embedding width {hidden} is not a multiple of {dtype:?}'s block of {}",
                dtype.block_size()
            );
        }
        let row_bytes = hidden / dtype.block_size() * dtype.type_size();
        if table.storage_size_in_bytes() != vocab * row_bytes {
            candle_core::bail!(
                "embedding table of {} bytes is not {vocab} rows of {row_bytes}",
                table.storage_size_in_bytes()
            );
        }
        let dense = match std::env::var_os("SCOPE_WEAVER_DEBUG_DENSE_EMBEDDINGS") {
            Some(_) => Some(table.dequantize(device)?),
            None => None,
        };
        Ok(Self {
            dense,
            table,
            vocab,
            hidden,
            row_bytes,
            device: device.clone(),
        })
    }

    /// The table, for an output layer tied to it.
    pub fn table(&self) -> Arc<QTensor> {
        self.table.clone()
    }
}

impl Module for QuantizedEmbedding {
    /// `ids` of any shape → that shape with `hidden` f32 values appended.
    fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        let mut dims = ids.dims().to_vec();
        dims.push(self.hidden);
        if let Some(dense) = &self.dense {
            return dense.embedding(&ids.flatten_all()?)?.reshape(dims);
        }
        let ids = ids.flatten_all()?.to_dtype(DType::U32)?.to_vec1::<u32>()?;
        let data = self.table.data()?;
        let dtype = self.table.dtype();
        let mut rows = Vec::with_capacity(ids.len() * self.hidden);
        for id in ids {
            let id = id as usize;
            if id >= self.vocab {
                candle_core::bail!("token id {id} is outside the embedding table ({})", self.vocab);
            }
            let bytes = &data[id * self.row_bytes..(id + 1) * self.row_bytes];
            let row = QTensor::new(
                QStorage::from_data(Cow::Borrowed(bytes), &Device::Cpu, dtype)?,
                (self.hidden,),
            )?;
            rows.extend(row.dequantize(&Device::Cpu)?.to_vec1::<f32>()?);
        }
        Tensor::from_vec(rows, dims, &self.device)
    }
}

#[cfg(test)]
mod tests {
    use candle_core::quantized::GgmlDType;

    use super::*;

    /// Each looked-up row equals the same row of the table dequantized whole (what upstream
    /// keeps), for a k-quant and a legacy block type.
    #[test]
    fn rows_equal_the_whole_table_dequantized() -> Result<()> {
        let dev = Device::Cpu;
        let (vocab, hidden) = (37, 512);
        let values: Vec<f32> = (0..vocab * hidden)
            .map(|i| ((i * 7919 % 1000) as f32 / 500.0 - 1.0) * (1.0 + (i % 13) as f32))
            .collect();
        let dense = Tensor::from_vec(values, (vocab, hidden), &dev)?;
        for dtype in [GgmlDType::Q4K, GgmlDType::Q6K, GgmlDType::Q4_1, GgmlDType::Q8_0] {
            let table = Arc::new(QTensor::quantize(&dense, dtype)?);
            let whole = table.dequantize(&dev)?;
            let emb = QuantizedEmbedding::new(table, &dev)?;
            let ids = Tensor::new(&[[0u32, 36, 5], [5, 17, 1]], &dev)?;
            let got = emb.forward(&ids)?;
            assert_eq!(got.dims(), &[2, 3, hidden]);
            let want = whole.embedding(&ids.flatten_all()?)?.reshape((2, 3, hidden))?;
            let diff = (got - want)?.abs()?.max_all()?.to_scalar::<f32>()?;
            assert_eq!(diff, 0.0, "{dtype:?}");
            assert!(emb.forward(&Tensor::new(&[37u32], &dev)?).is_err());
        }
        Ok(())
    }
}
