"""Văn bản của trang web (vi): trang và dịch vụ."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- khung trang -----------------------------------------------------------------
    "web.title": "Trình tạo và giải mã ID Snowflake",
    "web.description": (
        "Tạo ID Snowflake của Twitter từ dấu thời gian, mã trung tâm dữ liệu, mã máy và số thứ"
        " tự, hoặc giải mã một ID có sẵn, rồi xem 64 bit của nó được lấp đầy ra sao."
    ),
    "web.skip": "Chuyển đến công cụ",
    "web.nav_label": "Công cụ",
    "web.nav.compose": "Tạo ID",
    "web.nav.decode": "Giải mã",
    "web.lang_label": "Ngôn ngữ",
    "web.lang.en": "English",
    "web.lang.vi": "Tiếng Việt",
    "web.footer": "API JSON của dịch vụ này được mô tả trong tài liệu OpenAPI 3.1:",
    "web.not_found": "Không có trang nào ở địa chỉ này.",
    "web.back_home": "Quay lại trình tạo ID",
    # --- biểu mẫu tạo ID -------------------------------------------------------------
    "web.compose.heading": "Tạo ID Snowflake",
    "web.compose.intro": (
        "Nhập bốn trường bên dưới. ID và 64 bit của nó được cập nhật ngay khi bạn gõ;"
        " nếu trình duyệt tắt JavaScript, hãy bấm Tạo ID."
    ),
    "web.label.timestamp": "Dấu thời gian (mili giây Unix)",
    "web.hint.timestamp": "Từ 1288834974657 đến 3487858230208. Để trống để dùng thời gian hiện tại.",
    "web.label.datacenter": "Mã trung tâm dữ liệu",
    "web.hint.datacenter": "Từ 0 đến 31 (5 bit)",
    "web.label.machine": "Mã máy",
    "web.hint.machine": "Từ 0 đến 31 (5 bit)",
    "web.label.sequence": "Số thứ tự",
    "web.hint.sequence": "Từ 0 đến 4095 (12 bit)",
    "web.button.now": "Bây giờ",
    "web.button.now_label": "Điền thời gian hiện tại vào ô dấu thời gian",
    "web.button.compose": "Tạo ID",
    "web.button.decode": "Giải mã",
    "web.button.copy": "Sao chép",
    "web.button.copy_label": "Sao chép ID ở dạng thập phân",
    "web.copied": "Đã sao chép",
    "web.errors_summary": "Có {count} trường chưa hợp lệ, vui lòng sửa các ô được đánh dấu.",
    "web.used_now": "Ô dấu thời gian để trống nên công cụ dùng thời gian hiện tại: {timestamp}.",
    # --- biểu mẫu giải mã ------------------------------------------------------------
    "web.decode.heading": "Giải mã ID Snowflake",
    "web.decode.intro": (
        "Dán một ID ở dạng thập phân để xem dấu thời gian, mã trung tâm dữ liệu, mã máy và số"
        " thứ tự bên trong."
    ),
    "web.label.id": "ID Snowflake",
    "web.hint.id": "Một số nguyên từ 0 đến 9223372036854775807",
    # --- kết quả ---------------------------------------------------------------------
    "web.result.heading": "Kết quả",
    "web.result.decimal": "ID (thập phân)",
    "web.result.hex": "Thập lục phân",
    "web.result.utc": "Thời gian (UTC)",
    "web.result.local": "Thời gian (giờ địa phương)",
    "web.result.local_zone": "múi giờ của máy chủ {zone}",
    "web.result.fields": "Các trường",
    "web.result.worker": "Worker (trung tâm dữ liệu × 32 + máy)",
    "web.result.bits": "64 bit của ID",
    "web.result.bits_intro": "Bit có trọng số cao nhất đứng đầu; mỗi khối là một trường.",
    "web.block.width": "{width} bit",
    "web.block.width_one": "1 bit",
    "web.block.span": "bit {high}–{low}",
    "web.block.span_one": "bit {high}",
    "web.block.value": "giá trị {value}",
    "web.block.value_delta": "giá trị {value} (mili giây kể từ epoch)",
    "web.result.formula": "Tính theo công thức, từng bước",
    "web.result.open_decoder": "Mở trong trình giải mã",
    "web.result.open_generator": "Mở trong trình tạo ID",
    # --- giải thích ------------------------------------------------------------------
    "web.explain.heading": "ID Snowflake được tạo như thế nào",
    "web.explain.structure_h": "Cấu trúc",
    "web.explain.structure": (
        "ID Snowflake là một số nguyên 64 bit. Đọc từ bit có trọng số cao nhất xuống, ID gồm:"
        " một bit dấu luôn bằng 0 nên ID luôn là số dương; 41 bit thời gian, tính bằng mili"
        " giây kể từ epoch Twitter; 5 bit mã trung tâm dữ liệu; 5 bit mã máy; và 12 bit số thứ"
        " tự để phân biệt các ID mà một máy tạo ra trong cùng một mili giây. Vì thời gian nằm"
        " ở các bit cao nhất, ID tạo sau luôn là số lớn hơn."
    ),
    "web.explain.formula_h": "Công thức",
    "web.explain.formula": (
        "Gọi t là dấu thời gian tính bằng mili giây, c là mã trung tâm dữ liệu, m là mã máy và"
        " s là số thứ tự. Trước hết tính độ lệch d = t − 1288834974657, sau đó"
        " I = (d << 22) | (c << 17) | (m << 12) | s. Dịch trái 22 bit nghĩa là nhân với"
        " 2²² = 4.194.304. Các giá trị dịch suy ra từ độ rộng của từng trường: số thứ tự chiếm"
        " 12 bit, mã máy thêm 5 bit (17), mã trung tâm dữ liệu thêm 5 bit nữa (22). Các trường"
        " sau khi dịch không chồng lên nhau, nên phép OR cho cùng kết quả với phép cộng."
    ),
    "web.explain.limits_h": "Giới hạn",
    "web.explain.limit_epoch": (
        "Epoch cố định: thời gian được tính từ 01:42:54,657 UTC ngày 4 tháng 11 năm 2010"
        " (1288834974657 ms). Không thể mã hóa các thời điểm sớm hơn, và công cụ này không cho"
        " đổi epoch."
    ),
    "web.explain.limit_end": (
        "Năm 2080: 41 bit mili giây đủ dùng khoảng 69,7 năm. Dấu thời gian cuối cùng còn vừa"
        " là 3487858230208, tức 17:30:30,208 UTC ngày 10 tháng 7 năm 2080."
    ),
    "web.explain.limit_sequence": (
        "4.096 ID mỗi mili giây: trong một mili giây, một máy chỉ tạo được tối đa 4.096 ID khác"
        " nhau (số thứ tự từ 0 đến 4095); bộ tạo thực tế sẽ chờ sang mili giây kế tiếp."
    ),
    "web.explain.limit_identities": (
        "1.024 danh tính: 32 mã trung tâm dữ liệu × 32 mã máy. Hai máy cùng chạy với một cặp"
        " mã giống nhau có thể tạo ra ID trùng nhau."
    ),
    "web.explain.limit_order": (
        "Thứ tự giữa các máy: ID chỉ được sắp đúng theo thời gian khi đồng hồ của các máy khớp"
        " nhau. ID của cùng một máy luôn theo thứ tự; ID của hai máy có đồng hồ lệch nhau thì"
        " có thể không."
    ),
    "web.explain.stateless": (
        "Trang này không lưu trạng thái: nó tạo một ID từ bất kỳ giá trị nào bạn nhập. Dịch vụ"
        " phía sau còn cấp ID mới (POST /api/ids), mỗi tiến trình dưới một danh tính riêng"
        " được thuê."
    ),
    # --- dịch vụ ---------------------------------------------------------------------
    "web.error.not_found": "Không có đường dẫn {method} {path}",
    "web.error.method_not_allowed": "Không cho phép phương thức {method} trên {path}",
    "web.error.internal": "Lỗi máy chủ nội bộ",
    "web.error.unavailable": (
        "Hiện chưa thể cấp ID; vui lòng thử lại sau giây lát (nhật ký máy chủ ghi rõ nguyên nhân)"
    ),
    "web.error.not_ready": "Chưa giữ được danh tính worker nào: {reason}",
    "web.error.auth_required": (
        "Điểm cuối này cần token: hãy gửi tiêu đề Authorization: Bearer <token>"
    ),
    "web.error.auth_invalid": "Token không được chấp nhận",
    "web.serve.started": (
        "snowid serve: tiến trình {pid} tại http://{host}:{port} giữ trung tâm dữ liệu"
        " {datacenter}, máy {machine} (thuê qua {lease}, mức trần {ceiling})"
    ),
    "web.serve.no_identity": (
        "snowid serve: tiến trình {pid} tại http://{host}:{port} chưa giữ danh tính nào (thuê"
        " qua {lease}): {reason}"
    ),
    "web.serve.bad_host": (
        "không phải tên máy chủ hợp lệ: tên gồm các nhãn dài 1 đến 63 ký tự, ngăn cách bằng"
        " dấu chấm"
    ),
    "web.auth.reread": "snowid serve: tiến trình {pid} đã đọc lại {path}: {count} token",
    "web.auth.unusable": (
        "snowid serve: tiến trình {pid}: {message}; mọi token đều bị từ chối cho đến khi"
        " tệp được sửa"
    ),
}
