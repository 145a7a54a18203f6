SET autocommit = 1;
PREPARE sw FROM "INSERT INTO ticket_words (conversation_id, word, shop_id, in_comments) SELECT ?, q.w, 99, 1 FROM JSON_TABLE(?, '$[*]' COLUMNS (w VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$')) q ON DUPLICATE KEY UPDATE in_comments = 1";
PREPARE sk FROM "INSERT INTO ticket_words (conversation_id, word, shop_id, in_comments, known_words) SELECT ?, q.w, 99, 1, q.k FROM JSON_TABLE(?, '$[*]' COLUMNS (w VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$.w', k VARBINARY(2048) PATH '$.k')) q ON DUPLICATE KEY UPDATE in_comments = 1, known_words = VALUES(known_words)";
CREATE TABLE IF NOT EXISTS micro_docs (v INT, i INT, t BIGINT, known INT, doc TEXT, PRIMARY KEY (v, i));
DROP PROCEDURE IF EXISTS bench_mixed;
DROP PROCEDURE IF EXISTS bench_run;
DELIMITER //
-- comment i goes to ticket base + i % tickets; a ticket's first comment has the 12 fixed
-- words and nnew fresh ones, later comments the nnew fresh ones (the 12 are listed).
-- variant 0: nothing written; 1: words + the list row rewritten (main);
-- 2: words only (old statement); 3: words + a new chunk row (word CHAR(1)+j, k = new words only)
-- 5: words + the list row with a constant short list (an update of a small row)
CREATE PROCEDURE bench_mixed(IN variant INT, IN base BIGINT, IN tickets INT, IN per INT, IN nnew INT)
BEGIN
  DECLARE i INT DEFAULT 0; DECLARE k INT; DECLARE j INT; DECLARE m INT;
  DECLARE fixedw TEXT DEFAULT '"4521","and","arrived","from","has","hello","not","order","parcel","the","tracking","page"';
  DECLARE fixedo TEXT DEFAULT '{"w":"4521"},{"w":"and"},{"w":"arrived"},{"w":"from"},{"w":"has"},{"w":"hello"},{"w":"not"},{"w":"order"},{"w":"parcel"},{"w":"the"},{"w":"tracking"},{"w":"page"}';
  DECLARE fixedl TEXT DEFAULT '4521 and arrived from has hello not order page parcel the tracking';
  DECLARE fw TEXT; DECLARE fo TEXT; DECLARE fl TEXT; DECLARE w TEXT;
  WHILE i < tickets * per DO
    SET @t = base + i % tickets, j = i DIV tickets;
    SET fw = '', fo = '', fl = '', k = 0;
    WHILE k < nnew DO
      SET w = CONCAT('n9f3a1b2cx', i, 'y', k);
      SET fw = CONCAT(fw, IF(k > 0, ',', ''), '"', w, '"');
      SET fo = CONCAT(fo, IF(k > 0, ',', ''), '{"w":"', w, '"}');
      SET fl = CONCAT(fl, IF(k > 0, ' ', ''), w);
      SET k = k + 1;
    END WHILE;
    SET @list = fixedl, m = 0;
    WHILE m <= j DO
      SET k = 0;
      WHILE k < nnew DO
        SET @list = CONCAT(@list, ' n9f3a1b2cx', i % tickets + m * tickets, 'y', k);
        SET k = k + 1;
      END WHILE;
      SET m = m + 1;
    END WHILE;
    IF j = 0 THEN
      SET fw = CONCAT(fixedw, ',', fw), fo = CONCAT(fixedo, ',', fo), fl = CONCAT(fixedl, ' ', fl);
    END IF;
    IF variant = 0 THEN
      INSERT INTO micro_docs VALUES (variant, i, @t, 9, NULL);
    ELSEIF variant = 1 THEN
      SET @o = CONCAT('[', fo, ',{"w":"","k":"', @list, '"}]');
      INSERT INTO micro_docs VALUES (variant, i, @t, 1, @o);
    ELSEIF variant = 2 THEN
      SET @o = CONCAT('[', fw, ']');
      INSERT INTO micro_docs VALUES (variant, i, @t, 0, @o);
    ELSEIF variant = 3 THEN
      SET @o = CONCAT('[', fo, ',{"w":"\\u0001', j, '","k":"', fl, '"}]');
      INSERT INTO micro_docs VALUES (variant, i, @t, 1, @o);
    ELSEIF variant = 5 THEN
      SET @o = CONCAT('[', fo, ',{"w":"","k":"x', j, '"}]');
      INSERT INTO micro_docs VALUES (variant, i, @t, 1, @o);
    END IF;
    SET i = i + 1;
  END WHILE;
END //
CREATE PROCEDURE bench_run(IN variant INT, IN shift BIGINT)
BEGIN
  DECLARE done INT DEFAULT 0; DECLARE tt BIGINT; DECLARE kk INT; DECLARE dd TEXT;
  DECLARE c CURSOR FOR SELECT t, known, doc FROM micro_docs WHERE v = variant ORDER BY i;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  OPEN c;
  l: LOOP
    FETCH c INTO tt, kk, dd;
    IF done THEN LEAVE l; END IF;
    SET @t = tt + shift, @o = dd;
    IF kk = 1 THEN EXECUTE sk USING @t, @o; ELSEIF kk = 0 THEN EXECUTE sw USING @t, @o; END IF;
  END LOOP;
  CLOSE c;
END //
DELIMITER ;
