package rdb

// lzfDecompress is liblzf's lzf_decompress: literal runs (ctrl < 32: ctrl+1
// bytes) and back references (length ctrl>>5, +2, extended by a byte when
// 7; offset from the low five bits and the next byte). It fails unless the
// output is exactly n bytes.
func lzfDecompress(in []byte, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	for i := 0; i < len(in); {
		ctrl := int(in[i])
		i++
		if ctrl < 32 {
			ctrl++
			if i+ctrl > len(in) || len(out)+ctrl > n {
				return nil, ErrBadData
			}
			out = append(out, in[i:i+ctrl]...)
			i += ctrl
			continue
		}
		length := ctrl >> 5
		if length == 7 {
			if i >= len(in) {
				return nil, ErrBadData
			}
			length += int(in[i])
			i++
		}
		if i >= len(in) {
			return nil, ErrBadData
		}
		ref := len(out) - (ctrl&0x1F)<<8 - int(in[i]) - 1
		i++
		length += 2
		if ref < 0 || len(out)+length > n {
			return nil, ErrBadData
		}
		for j := 0; j < length; j++ { // byte by byte: the copy may overlap itself
			out = append(out, out[ref+j])
		}
	}
	if len(out) != n {
		return nil, ErrBadData
	}
	return out, nil
}
